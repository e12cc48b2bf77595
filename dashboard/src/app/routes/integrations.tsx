// Integrations — placeholder until its screen lands; shows only its real title.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';

export function IntegrationsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return <PageHeader title="Integrations" subtitle={bot?.name ?? undefined} />;
}
