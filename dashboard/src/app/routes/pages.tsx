// Screens whose content arrives with their own issues. Each shows its real title (and, where the
// spec defines one, its real "no bot selected" state) and nothing invented.
import { Button, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';

export function PageRoute({ title }: { title: string }) {
  return <PageHeader title={title} />;
}

/** A screen about the active bot (the router guarantees there is one). */
export function BotScreenRoute({ title }: { title: string }) {
  const snap = useSnapshot(bots);
  const bot = activeBot(snap);
  return <PageHeader title={title} subtitle={bot?.name ?? undefined} />;
}

function NoBot({ title, message, action }: { title: string; message: string; action?: boolean }) {
  return (
    <Stack align="center" py="xl" gap="xs">
      <Title order={3}>{title}</Title>
      <Text c="dimmed">{message}</Text>
      {action && (
        <Button component={Link} to="/dashboard" mt="sm">
          Go to Dashboard
        </Button>
      )}
    </Stack>
  );
}

export function AgentDashboardRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot)
    return <NoBot title="No Bot Selected" message="Please select a bot to start handling support sessions." />;
  return <PageHeader title="Agent Dashboard" subtitle={`Managing support for ${bot.name ?? ''}`} />;
}

export function BotSettingsRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot) return <NoBot title="No Bot Selected" message="Please select a bot to configure its settings." />;
  return <PageHeader title="Bot Settings" subtitle={bot.name ?? undefined} />;
}

export function TeamsRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot) return <NoBot title="No bot selected" message="Select a bot to manage its team." action />;
  return <PageHeader title="Team Management" subtitle={bot.name ?? undefined} />;
}
