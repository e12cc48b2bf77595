// One row of the team: who, role (colour, Owner badge), status, permission chips (active members
// only), dates, and the actions the caller may take: edit the role, remove; for an invitation,
// resend and revoke.
import { useState } from 'react';
import { ActionIcon, Avatar, Badge, Button, Card, Group, Select, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconEdit, IconMailForward, IconTrash, IconX } from '@tabler/icons-react';
import type { MemberRole, RoleOption, TeamMember } from '../api/team';
import { roleColor } from '../stores/team';

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' }) : null);

export function memberName(m: Pick<TeamMember, 'name' | 'email' | 'invitedEmail'>): string {
  return m.name?.trim() || m.email || m.invitedEmail;
}

export function MemberRow({
  member: m,
  roles,
  canManage,
  onSaveRole,
  onRemove,
  onResend,
}: {
  member: TeamMember;
  roles: readonly RoleOption[];
  /** The team's canRemoveMembers: edit and remove buttons show only with it. */
  canManage: boolean;
  onSaveRole: (m: TeamMember, role: MemberRole) => Promise<boolean>;
  onRemove: (m: TeamMember) => void;
  onResend: (m: TeamMember) => Promise<boolean>;
}) {
  const [editing, setEditing] = useState(false);
  const [role, setRole] = useState<string>(m.role);
  const [busy, setBusy] = useState(false);
  const name = memberName(m);
  const invitation = m.status === 'pending' || m.status === 'expired';
  const mayEdit = canManage && !m.isOwner && m.canEdit;
  const mayRemove = canManage && !m.isOwner && m.canRemove;

  const cancel = () => {
    setRole(m.role); // spec: cancel reverts
    setEditing(false);
  };
  const save = async () => {
    setBusy(true);
    const ok = await onSaveRole(m, role as MemberRole);
    setBusy(false);
    if (ok) setEditing(false);
    else setRole(m.role);
  };
  const resend = async () => {
    setBusy(true);
    await onResend(m);
    setBusy(false);
  };

  return (
    <Card withBorder padding="sm" data-testid="team-member" data-email={m.email || m.invitedEmail}>
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          <Avatar src={m.avatar || null} name={name} color="initials" />
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Group gap={6} wrap="wrap">
              <Text fw={600} truncate>
                {name}
              </Text>
              {m.isOwner ? (
                <Badge color={roleColor('owner')} variant="filled" size="sm">
                  Owner
                </Badge>
              ) : (
                !editing && (
                  <Badge color={roleColor(m.role)} variant="light" size="sm" data-testid="member-role">
                    {m.roleLabel || m.role}
                  </Badge>
                )
              )}
              {m.status === 'pending' && (
                <Badge color="orange" variant="outline" size="sm">
                  Pending
                </Badge>
              )}
              {m.status === 'expired' && (
                <Badge color="red" variant="outline" size="sm">
                  Expired
                </Badge>
              )}
              {m.status === 'inactive' && (
                <Badge color="gray" variant="outline" size="sm">
                  Inactive
                </Badge>
              )}
            </Group>
            {m.name?.trim() && m.email && (
              <Text size="sm" c="dimmed" truncate>
                {m.email}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              {invitation
                ? [
                    m.invitedAt && `Invited ${date(m.invitedAt)}`,
                    m.expiresAt && (m.status === 'expired' ? `expired ${date(m.expiresAt)}` : `expires ${date(m.expiresAt)}`),
                  ]
                    .filter(Boolean)
                    .join(' · ')
                : [m.joinedAt && `Joined ${date(m.joinedAt)}`, m.lastActive && `Last active ${date(m.lastActive)}`]
                    .filter(Boolean)
                    .join(' · ')}
            </Text>
            {m.status === 'active' && m.chips.length > 0 && (
              <Group gap={4} mt={2} data-testid="member-chips">
                {m.chips.map((c) => (
                  <Badge key={c} size="xs" variant="dot" color={roleColor(m.role)}>
                    {c}
                  </Badge>
                ))}
              </Group>
            )}
          </Stack>
        </Group>

        {editing ? (
          <Group gap="xs" wrap="nowrap">
            <Select
              aria-label={`Role for ${name}`}
              data={roles.map((r) => ({ value: r.value, label: r.label }))}
              value={role}
              onChange={(v) => v && setRole(v)}
              allowDeselect={false}
              w={170}
              size="xs"
              comboboxProps={{ withinPortal: false }}
            />
            <ActionIcon color="green" variant="light" aria-label="Save role" loading={busy} onClick={() => void save()}>
              <IconCheck size={16} />
            </ActionIcon>
            <ActionIcon color="gray" variant="subtle" aria-label="Cancel" disabled={busy} onClick={cancel}>
              <IconX size={16} />
            </ActionIcon>
          </Group>
        ) : (
          <Group gap="xs" wrap="nowrap">
            {invitation && mayEdit && (
              <Button size="xs" variant="light" leftSection={<IconMailForward size={14} />} loading={busy} onClick={() => void resend()}>
                Resend
              </Button>
            )}
            {invitation && mayRemove && (
              <Button size="xs" variant="subtle" color="red" onClick={() => onRemove(m)}>
                Revoke
              </Button>
            )}
            {!invitation && mayEdit && (
              <Tooltip label="Edit role">
                <ActionIcon variant="subtle" aria-label={`Edit ${name}`} onClick={() => setEditing(true)}>
                  <IconEdit size={16} />
                </ActionIcon>
              </Tooltip>
            )}
            {!invitation && mayRemove && (
              <Tooltip label="Remove">
                <ActionIcon variant="subtle" color="red" aria-label={`Remove ${name}`} onClick={() => onRemove(m)}>
                  <IconTrash size={16} />
                </ActionIcon>
              </Tooltip>
            )}
          </Group>
        )}
      </Group>
    </Card>
  );
}
