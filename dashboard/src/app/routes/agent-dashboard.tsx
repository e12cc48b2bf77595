// Agent Dashboard — placeholder until its screen lands.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';
import { NoBot } from '@/components/NoBot';

export function AgentDashboardRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot)
    return <NoBot title="No Bot Selected" message="Please select a bot to start handling support sessions." />;
  return <PageHeader title="Agent Dashboard" subtitle={`Managing support for ${bot.name ?? ''}`} />;
}
