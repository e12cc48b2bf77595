// The confirmation step of an invitation link: which bot, which role, invited by whom; Accept or
// Decline. An unverified account is told to verify first (the server refuses it anyway).
import { useEffect, useMemo } from 'react';
import { Alert, Avatar, Badge, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useSnapshot } from 'valtio';
import type { Bot } from '@/features/bots/api/bots';
import type { InvitationLink } from '../api/team';
import { createAcceptance } from '../stores/acceptance';
import { roleColor } from '../stores/team';

const ROLE_LABEL: Record<string, string> = {
  admin: 'Administrator',
  editor: 'Editor',
  viewer: 'Viewer',
  agent: 'Support Agent',
};

export function AcceptInvitation({
  link,
  emailVerified,
  onAccepted,
  onDeclined,
}: {
  link: InvitationLink;
  /** False for an account whose address is not verified yet. */
  emailVerified: boolean;
  onAccepted: (bot: Bot) => void;
  onDeclined: () => void;
}) {
  const acceptance = useMemo(() => createAcceptance(link), [link.botId, link.memberId, link.token]);
  const s = useSnapshot(acceptance.state);

  useEffect(() => {
    void acceptance.load();
  }, [acceptance]);

  if (s.phase === 'loading') {
    return (
      <Group justify="center" py="xl">
        <Loader aria-label="Loading invitation" />
      </Group>
    );
  }
  if (s.phase === 'failed' || !s.invitation) {
    return (
      <Stack align="center" py="xl" gap="xs">
        <Title order={3}>Invitation unavailable</Title>
        <Text c="dimmed" ta="center" maw={480}>
          {s.error}
        </Text>
        <Button component={Link} to="/dashboard" mt="sm">
          Go to Dashboard
        </Button>
      </Stack>
    );
  }

  const inv = s.invitation;
  const inviter = inv.invitedBy.name?.trim() || inv.invitedBy.email;
  const botName = inv.botName || 'Untitled Assistant';
  const busy = s.phase === 'accepting' || s.phase === 'declining';
  const done = s.phase === 'accepted' || s.phase === 'declined';

  return (
    <Card withBorder padding="xl" maw={560} mx="auto" mt="lg" data-testid="invitation-confirm">
      <Stack gap="md">
        <Title order={3}>Join {botName}?</Title>
        <Group gap="sm" wrap="nowrap">
          <Avatar src={inv.botIcon || null} name={botName} color="initials" size="lg" radius="md" />
          <Stack gap={2}>
            <Text>
              <b>{inviter}</b> invited you to join <b>{botName}</b> as{' '}
              <Badge color={roleColor(inv.role)} variant="light">
                {ROLE_LABEL[inv.role] ?? inv.role}
              </Badge>
            </Text>
            <Text size="sm" c="dimmed">
              Sent to {inv.email}
              {inv.expiresAt && ` · expires ${new Date(inv.expiresAt).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' })}`}
            </Text>
          </Stack>
        </Group>
        {!emailVerified && (
          <Alert color="yellow" title="Verify your email first">
            Follow the link we sent to your address, then come back to this invitation.
          </Alert>
        )}
        {s.error && (
          <Alert color="red" role="alert">
            {s.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button
            variant="default"
            loading={s.phase === 'declining'}
            disabled={busy || done}
            onClick={async () => {
              if (await acceptance.decline()) onDeclined();
            }}
          >
            Decline
          </Button>
          <Button
            loading={s.phase === 'accepting'}
            disabled={busy || done}
            onClick={async () => {
              const bot = await acceptance.accept();
              if (bot) onAccepted(bot);
            }}
          >
            Accept Invitation
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
