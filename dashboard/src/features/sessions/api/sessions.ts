// The sessions list calls: GET /api/sessions (paged, pinned first, with an optional title search
// `q` and pinned/starred filters), PUT /api/chat/session/{id} (pin, star) and
// DELETE /api/chat/sessions/{id} (http/src/routes/chat/sessions.rs).
import { api } from '@/lib/api';

export type SessionStatus = 'active' | 'pending' | 'resolved';

/** A chat session as the list sends it (engine/src/chat/events.rs `session_view`). */
export interface ChatSession {
  _id: string;
  id: string;
  botId: string;
  title: string | null;
  status: SessionStatus | string;
  lastMessage: string | null;
  messageCount: number;
  timestamp: string | null;
  isPinned: boolean;
  isStarred: boolean;
  needsHumanSupport: boolean;
  assignedAgent: { _id: string; id: string; name: string | null } | null;
  customerName?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface SessionPage {
  sessions: ChatSession[];
  total: number;
  page: number;
  limit: number;
}

export interface ListParams {
  botId: string;
  page: number;
  limit: number;
  q?: string;
  pinned?: boolean;
  starred?: boolean;
}

export interface SessionMarks {
  pinned?: boolean;
  starred?: boolean;
}

export const sessionsApi = {
  list: ({ botId, page, limit, q, pinned, starred }: ListParams, signal?: AbortSignal) => {
    const params = new URLSearchParams({ botId, page: String(page), limit: String(limit) });
    if (q) params.set('q', q);
    if (pinned !== undefined) params.set('pinned', String(pinned));
    if (starred !== undefined) params.set('starred', String(starred));
    return api<SessionPage>(`/sessions?${params}`, { signal });
  },
  mark: (id: string, marks: SessionMarks) =>
    api<{ session: ChatSession }>(`/chat/session/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...marks } }),
  remove: (id: string) => api<{ ok: boolean }>(`/chat/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' }),
};
