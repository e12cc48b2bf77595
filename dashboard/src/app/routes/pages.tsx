// Screens whose content arrives with their own issues (leads, billing, teams). Each shows its real
// title (and, where the spec defines one, its real "no bot selected" state) and nothing invented.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';
import { NoBot } from '@/components/NoBot';

export function PageRoute({ title }: { title: string }) {
  return <PageHeader title={title} />;
}

export function TeamsRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot) return <NoBot title="No bot selected" message="Select a bot to manage its team." action />;
  return <PageHeader title="Team Management" subtitle={bot.name ?? undefined} />;
}
