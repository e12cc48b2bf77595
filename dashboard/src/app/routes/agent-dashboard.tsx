// Agent Dashboard (/agent-dashboard): live support work on the active bot.
import { PageHeader } from '@/components/PageHeader';
import { NoBot } from '@/components/NoBot';
import { AgentDashboard, HeaderCounters } from '@/features/support/components/AgentDashboard';
import { useSupport } from '@/features/support/hooks/useSupport';
import { askNotificationPermission } from '@/features/support/stores/alerts';
import { ReadOnlyNotice } from '@/components/ReadOnlyNotice';
import { can, parseRole } from '@/lib/permissions';

export function AgentDashboardRoute() {
  const bot = useSupport('dashboard');
  if (!bot)
    return <NoBot title="No Bot Selected" message="Please select a bot to start handling support sessions." />;
  const canHandle = can(bot.role, 'handleSupport');
  return (
    <div onPointerDownCapture={askNotificationPermission} onKeyDownCapture={askNotificationPermission}>
      <PageHeader title="Agent Dashboard" subtitle={`Managing support for ${bot.name ?? ''}`} actions={<HeaderCounters />} />
      {!canHandle && (
        <ReadOnlyNotice role={parseRole(bot.role)}>
          As {parseRole(bot.role) === 'editor' ? 'an editor' : 'a viewer'} you can watch the support queue, but only
          support agents, administrators and the owner take, answer and resolve sessions.
        </ReadOnlyNotice>
      )}
      <AgentDashboard botName={bot.name ?? 'Bot'} canHandle={canHandle} />
    </div>
  );
}
