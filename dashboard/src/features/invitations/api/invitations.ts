import { api } from '@/lib/api';

export interface Invitation {
  _id: string;
  botId: string;
  botName: string | null;
  botIcon: string | null;
  role: 'admin' | 'editor' | 'viewer' | 'agent';
  invitedBy: { name: string | null; email: string };
  invitedAt: string;
}

export const invitationsApi = {
  list: () => api<{ invitations: Invitation[] }>('/invitations'),
  respond: (id: string, accept: boolean) =>
    api<unknown>(`/invitations/${encodeURIComponent(id)}/respond`, {
      method: 'POST',
      body: { accept },
    }),
};
