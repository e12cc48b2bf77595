// Integrations: embed snippets with the active bot's real id, and how to install them.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { Integrations } from '@/features/settings/components/Integrations';
import { PageHeader } from '@/components/PageHeader';

export function IntegrationsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return (
    <>
      <PageHeader title="Integrations" subtitle={bot?.name ?? undefined} />
      {bot && <Integrations botId={bot._id} />}
    </>
  );
}
