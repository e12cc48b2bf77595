// The team calls (http/src/routes/bots/team.rs and http/src/routes/team.rs), typed from the
// server's JSON.
import { api } from '@/lib/api';
import type { Bot } from '@/features/bots/api/bots';

export type MemberRole = 'admin' | 'editor' | 'viewer' | 'agent';
export type MemberStatus = 'active' | 'pending' | 'expired' | 'inactive';

export interface TeamMember {
  _id: string;
  userId: string | null;
  name: string;
  email: string;
  invitedEmail: string;
  avatar: string | null;
  /** 'owner' on the owner's row only. */
  role: MemberRole | 'owner';
  roleLabel: string;
  isOwner: boolean;
  status: MemberStatus;
  lastActive: string | null;
  joinedAt: string | null;
  invitedAt: string | null;
  expiresAt: string | null;
  chips: string[];
  permissions: string[];
  canEdit: boolean;
  canRemove: boolean;
}

export interface RoleOption {
  value: MemberRole;
  label: string;
  chips: string[];
  permissions: string[];
}

export interface Team {
  members: TeamMember[];
  ownerId: string;
  owner: { _id: string; name: string; email: string } | null;
  botId: string;
  botName: string;
  /** The caller's role on this bot. */
  role: string;
  canInvite?: boolean;
  canRemoveMembers?: boolean;
  roles: RoleOption[];
}

/** What an invitation link is for: the confirmation step shows it. */
export interface InvitationPreview {
  _id: string;
  botId: string;
  botName: string | null;
  botIcon: string | null;
  role: MemberRole;
  invitedBy: { name: string | null; email: string };
  invitedAt: string;
  expiresAt: string | null;
  email: string;
}

export interface InvitationLink {
  botId: string;
  memberId: string;
  token: string;
}

const team = (botId: string) => `/bots/${encodeURIComponent(botId)}/team`;
const member = (botId: string, memberId: string) => `${team(botId)}/${encodeURIComponent(memberId)}`;

export const teamApi = {
  get: (botId: string) => api<Team>(team(botId)),
  invite: (botId: string, email: string, role: MemberRole) =>
    api<{ member: TeamMember; message: string }>(`${team(botId)}/invite`, { method: 'POST', body: { email, role } }),
  setRole: (botId: string, memberId: string, role: MemberRole) =>
    api<{ member: TeamMember; message: string }>(member(botId, memberId), { method: 'PUT', body: { role } }),
  /** Removes a member, or revokes a pending invitation (`revoked`). */
  remove: (botId: string, memberId: string) =>
    api<{ ok: boolean; revoked: boolean; message: string }>(member(botId, memberId), { method: 'DELETE' }),
  resend: (botId: string, memberId: string) =>
    api<{ member: TeamMember; message: string }>(`${member(botId, memberId)}/resend`, { method: 'POST' }),
};

export const invitationLinkApi = {
  preview: (link: InvitationLink) => {
    const q = new URLSearchParams({ botId: link.botId, memberId: link.memberId, token: link.token });
    return api<{ invitation: InvitationPreview }>(`/team/accept-invitation?${q}`);
  },
  accept: (link: InvitationLink) =>
    api<{ ok: boolean; message: string; bot: Bot; member: { _id: string; role: MemberRole; status: string } }>(
      '/team/accept-invitation',
      { method: 'POST', body: { ...link } },
    ),
  decline: (link: InvitationLink) =>
    api<{ ok: boolean; message: string }>('/team/decline-invitation', { method: 'POST', body: { ...link } }),
};
