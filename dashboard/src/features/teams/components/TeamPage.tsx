// Team Management (/teams) for the active bot: back link, search, the roster (owner first), the
// Invite Member modal, edit and remove with confirmation, and the "No team members" state.
import { useEffect, useState } from 'react';
import { Anchor, Button, Card, Group, Loader, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconArrowLeft, IconSearch, IconUserPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSnapshot } from 'valtio';
import type { Team, TeamMember } from '../api/team';
import { changeRole, filterMembers, loadTeam, removeMember, resendInvitation, team, teamFlags } from '../stores/team';
import { InviteModal } from './InviteModal';
import { MemberRow, memberName } from './MemberRow';

export function TeamPage({ botId, botName }: { botId: string; botName: string }) {
  const snap = useSnapshot(team);
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);

  useEffect(() => {
    void loadTeam(botId);
  }, [botId]);

  const t = (snap.botId === botId ? snap.team : null) as Team | null;
  const { canInvite, canRemoveMembers } = teamFlags(t);
  const members = t?.members ?? [];
  const others = members.filter((m) => !m.isOwner);
  const shown = filterMembers(members, snap.search);

  async function confirmRemove() {
    if (!removing) return;
    setRemoveBusy(true);
    const ok = await removeMember(botId, removing._id);
    setRemoveBusy(false);
    if (ok) setRemoving(null);
  }

  const removingInvitation = removing && removing.status !== 'active' && removing.status !== 'inactive';

  return (
    <>
      <Anchor component={Link} to="/dashboard" size="sm" mb="sm" display="inline-flex" style={{ alignItems: 'center', gap: 4 }}>
        <IconArrowLeft size={14} /> Back to Dashboard
      </Anchor>
      <Group justify="space-between" align="flex-start" mb="lg" wrap="wrap">
        <Stack gap={2}>
          <Title order={2}>Team Management</Title>
          <Text c="dimmed">
            {t ? `${members.length} ${members.length === 1 ? 'member' : 'members'} of ${botName}` : botName}
          </Text>
        </Stack>
        {t && canInvite && (
          <Button leftSection={<IconUserPlus size={16} />} onClick={() => setInviting(true)}>
            Invite Member
          </Button>
        )}
      </Group>

      {!t && snap.loading && (
        <Group justify="center" py="xl">
          <Loader aria-label="Loading team" />
        </Group>
      )}
      {!t && !snap.loading && snap.loadError && (
        <Stack align="center" py="xl" gap="xs">
          <Text c="red">{snap.loadError}</Text>
          <Button variant="light" onClick={() => void loadTeam(botId)}>
            Retry
          </Button>
        </Stack>
      )}

      {t && (
        <Stack gap="md">
          <TextInput
            placeholder="Search members..."
            aria-label="Search members"
            leftSection={<IconSearch size={16} />}
            value={snap.search}
            onChange={(e) => (team.search = e.currentTarget.value)}
            maw={420}
          />
          <Stack gap="xs">
            {shown.map((m) => (
              <MemberRow
                key={m._id}
                member={m}
                roles={t.roles}
                canManage={canRemoveMembers}
                onSaveRole={(member, role) => changeRole(botId, member, role)}
                onRemove={setRemoving}
                onResend={(member) => resendInvitation(botId, member._id)}
              />
            ))}
          </Stack>
          {others.length === 0 && !snap.search.trim() && (
            <Card withBorder padding="xl">
              <Stack align="center" gap="xs">
                <Title order={4}>No team members</Title>
                <Text c="dimmed" size="sm" ta="center">
                  Invite people to help you edit, watch and answer for {botName}.
                </Text>
                {canInvite && (
                  <Button mt="sm" leftSection={<IconUserPlus size={16} />} onClick={() => setInviting(true)}>
                    Invite First Member
                  </Button>
                )}
              </Stack>
            </Card>
          )}
          {shown.length === 0 && snap.search.trim() && (
            <Text c="dimmed" ta="center" py="lg">
              No members match “{snap.search.trim()}”
            </Text>
          )}
        </Stack>
      )}

      {t && <InviteModal botId={botId} roles={t.roles} opened={inviting} onClose={() => setInviting(false)} />}

      <Modal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={removingInvitation ? 'Revoke invitation' : 'Remove team member'}
        centered
      >
        <Text size="sm">
          {removing &&
            (removingInvitation
              ? `Revoke the invitation to ${removing.invitedEmail}? The link in their email will stop working.`
              : `Remove ${memberName(removing)} from the team? They lose access to ${botName} at once.`)}
        </Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setRemoving(null)} disabled={removeBusy}>
            Cancel
          </Button>
          <Button color="red" loading={removeBusy} onClick={() => void confirmRemove()}>
            {removingInvitation ? 'Revoke' : 'Remove'}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
