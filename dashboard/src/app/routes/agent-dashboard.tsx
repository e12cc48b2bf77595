// Agent Dashboard (/agent-dashboard): live support work on the active bot.
import { PageHeader } from '@/components/PageHeader';
import { NoBot } from '@/components/NoBot';
import { AgentDashboard, HeaderCounters } from '@/features/support/components/AgentDashboard';
import { useSupport } from '@/features/support/hooks/useSupport';
import { askNotificationPermission } from '@/features/support/stores/alerts';

export function AgentDashboardRoute() {
  const bot = useSupport('dashboard');
  if (!bot)
    return <NoBot title="No Bot Selected" message="Please select a bot to start handling support sessions." />;
  return (
    <div onPointerDownCapture={askNotificationPermission} onKeyDownCapture={askNotificationPermission}>
      <PageHeader title="Agent Dashboard" subtitle={`Managing support for ${bot.name ?? ''}`} actions={<HeaderCounters />} />
      <AgentDashboard botName={bot.name ?? 'Bot'} />
    </div>
  );
}
