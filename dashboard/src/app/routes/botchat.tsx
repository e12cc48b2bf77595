// Agent conversations (/botchat): the bot's inbox with its live support queue.
import { useEffect } from 'react';
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { session } from '@/features/auth/stores/session';
import { PageHeader } from '@/components/PageHeader';
import { Inbox } from '@/features/support/components/Inbox';
import { OnlineBadge } from '@/features/support/components/AgentDashboard';
import { startSupport } from '@/features/support/stores/support';
import { askNotificationPermission } from '@/features/support/stores/alerts';

export function BotChatRoute() {
  const bot = activeBot(useSnapshot(bots));
  const { user } = useSnapshot(session);
  const botId = bot?._id ?? null;
  const me = user?._id ?? null;

  useEffect(() => {
    if (!botId) return;
    return startSupport(botId, me, 'inbox');
  }, [botId, me]);

  if (!bot) return null;
  return (
    <div onPointerDownCapture={askNotificationPermission} onKeyDownCapture={askNotificationPermission}>
      <PageHeader title="Chat" subtitle={bot.name ?? undefined} actions={<OnlineBadge />} />
      <Inbox botName={bot.name ?? 'Bot'} />
    </div>
  );
}
