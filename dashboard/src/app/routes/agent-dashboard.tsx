// Agent Dashboard (/agent-dashboard): live support work on the active bot.
import { useEffect } from 'react';
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { session } from '@/features/auth/stores/session';
import { PageHeader } from '@/components/PageHeader';
import { NoBot } from '@/components/NoBot';
import { AgentDashboard, HeaderCounters } from '@/features/support/components/AgentDashboard';
import { startSupport } from '@/features/support/stores/support';
import { askNotificationPermission } from '@/features/support/stores/alerts';

export function AgentDashboardRoute() {
  const bot = activeBot(useSnapshot(bots));
  const { user } = useSnapshot(session);
  const botId = bot?._id ?? null;
  const me = user?._id ?? null;

  useEffect(() => {
    if (!botId) return;
    return startSupport(botId, me, 'dashboard');
  }, [botId, me]);

  if (!bot)
    return <NoBot title="No Bot Selected" message="Please select a bot to start handling support sessions." />;
  return (
    <div onPointerDownCapture={askNotificationPermission} onKeyDownCapture={askNotificationPermission}>
      <PageHeader title="Agent Dashboard" subtitle={`Managing support for ${bot.name ?? ''}`} actions={<HeaderCounters />} />
      <AgentDashboard botName={bot.name ?? 'Bot'} />
    </div>
  );
}
