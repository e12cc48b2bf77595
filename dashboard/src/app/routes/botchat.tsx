// Agent conversations (/botchat): the bot's inbox with its live support queue.
// `?session={id}` opens that conversation (the /sessions rows and the Leads page link here).
import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/PageHeader';
import { Inbox } from '@/features/support/components/Inbox';
import { OnlineBadge } from '@/features/support/components/AgentDashboard';
import { useSupport } from '@/features/support/hooks/useSupport';
import { askNotificationPermission } from '@/features/support/stores/alerts';
import { selectSession } from '@/features/support/stores/support';
import { can } from '@/lib/permissions';

export function BotChatRoute() {
  const bot = useSupport('inbox');
  const [params] = useSearchParams();
  const wanted = params.get('session');
  const botId = bot?._id;
  // After useSupport's effect started the store for this bot, so the inbox's first load keeps
  // this selection instead of opening the newest conversation.
  useEffect(() => {
    if (botId && wanted) void selectSession(wanted);
  }, [botId, wanted]);
  if (!bot) return null;
  return (
    <div onPointerDownCapture={askNotificationPermission} onKeyDownCapture={askNotificationPermission}>
      <PageHeader title="Chat" subtitle={bot.name ?? undefined} actions={<OnlineBadge />} />
      <Inbox botName={bot.name ?? 'Bot'} canHandle={can(bot.role, 'handleSupport')} canEdit={can(bot.role, 'editMessage')} canMark={can(bot.role, 'markSession')} />
    </div>
  );
}
