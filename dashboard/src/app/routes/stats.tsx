// Analytics (/stats): the dashboard overview for the user's bots and the active bot.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';
import { Overview } from '@/features/overview/components/Overview';

export function StatsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return (
    <>
      <PageHeader title="Analytics" subtitle={bot?.name ?? undefined} />
      <Overview />
    </>
  );
}
