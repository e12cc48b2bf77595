import { useState } from 'react';
import { Avatar, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { invitations, respondToInvitation } from '../stores/invitations';

/** Team Invitations: pending invitations with Accept and Decline. `onResponded` runs after each. */
export function InvitationsList({ onResponded }: { onResponded: (accepted: boolean) => void }) {
  const snap = useSnapshot(invitations);
  const [busy, setBusy] = useState<string | null>(null);
  if (snap.list.length === 0) return null;

  const respond = async (id: string, accept: boolean) => {
    setBusy(id);
    try {
      await respondToInvitation(id, accept);
      notify.success(accept ? 'Invitation accepted!' : 'Invitation declined');
      onResponded(accept);
    } catch (err) {
      notify.error(accept ? 'Failed to accept invitation' : 'Failed to decline invitation', errorMessage(err, ''));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Stack gap="sm" mb="lg">
      <Title order={4}>Team Invitations</Title>
      {snap.list.map((inv) => (
        <Card withBorder key={inv._id} padding="sm">
          <Group justify="space-between" wrap="wrap">
            <Group gap="sm" wrap="nowrap">
              <Avatar src={inv.botIcon || null} name={inv.botName || 'Assistant'} color="initials" />
              <div>
                <Text fw={600}>{inv.botName || 'Untitled Assistant'}</Text>
                <Text size="sm" c="dimmed">
                  Invited by {inv.invitedBy.name || inv.invitedBy.email}
                  {inv.invitedAt && ` on ${new Date(inv.invitedAt).toLocaleDateString()}`}
                </Text>
              </div>
              <Badge variant="light">{inv.role}</Badge>
            </Group>
            <Group gap="xs">
              <Button size="xs" loading={busy === inv._id} onClick={() => respond(inv._id, true)}>
                Accept
              </Button>
              <Button size="xs" variant="default" disabled={busy === inv._id} onClick={() => respond(inv._id, false)}>
                Decline
              </Button>
            </Group>
          </Group>
        </Card>
      ))}
    </Stack>
  );
}
