// Analytics — placeholder until its screen lands; shows only its real title.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';

export function StatsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return <PageHeader title="Analytics" subtitle={bot?.name ?? undefined} />;
}
