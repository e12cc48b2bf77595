// Training — placeholder until its screen lands; shows only its real title.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';

export function TrainingRoute() {
  const bot = activeBot(useSnapshot(bots));
  return <PageHeader title="Training" subtitle={bot?.name ?? undefined} />;
}
