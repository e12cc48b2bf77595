// Team rows as GET /api/bots/{id}/team sends them, for the teams tests.
import type { Team, TeamMember } from '@/features/teams/api/team';

export function member(id: string, extra: Partial<TeamMember> = {}): TeamMember {
  return {
    _id: id,
    userId: `u-${id}`,
    name: `Name ${id}`,
    email: `${id}@example.com`,
    invitedEmail: `${id}@example.com`,
    avatar: null,
    role: 'editor',
    roleLabel: 'Editor',
    isOwner: false,
    status: 'active',
    lastActive: null,
    joinedAt: '2026-11-01T00:00:00Z',
    invitedAt: '2026-10-30T00:00:00Z',
    expiresAt: null,
    chips: ['Edit Bot', 'View Analytics'],
    permissions: [],
    canEdit: true,
    canRemove: true,
    ...extra,
  };
}

export function teamOf(members: TeamMember[], extra: Partial<Team> = {}): Team {
  return {
    members,
    ownerId: 'owner',
    owner: { _id: 'owner', name: 'Ada', email: 'ada@example.com' },
    botId: 'b1',
    botName: 'Helper',
    role: 'owner',
    canInvite: true,
    canRemoveMembers: true,
    roles: [
      { value: 'admin', label: 'Administrator', chips: ['Manage Team'], permissions: ['manage team members'] },
      { value: 'editor', label: 'Editor', chips: ['Edit Bot'], permissions: ['edit bot settings'] },
      { value: 'viewer', label: 'Viewer', chips: ['View Only'], permissions: ['view conversations'] },
      { value: 'agent', label: 'Support Agent', chips: ['Handle Support'], permissions: ['resolve tickets'] },
    ],
    ...extra,
  };
}
