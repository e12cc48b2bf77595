// Sessions — placeholder until its screen lands; shows only its real title.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';

export function SessionsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return <PageHeader title="Sessions" subtitle={bot?.name ?? undefined} />;
}
