// Agent conversations (/botchat): the bot's inbox with its live support queue.
import { PageHeader } from '@/components/PageHeader';
import { Inbox } from '@/features/support/components/Inbox';
import { OnlineBadge } from '@/features/support/components/AgentDashboard';
import { useSupport } from '@/features/support/hooks/useSupport';
import { askNotificationPermission } from '@/features/support/stores/alerts';
import { can } from '@/lib/permissions';

export function BotChatRoute() {
  const bot = useSupport('inbox');
  if (!bot) return null;
  return (
    <div onPointerDownCapture={askNotificationPermission} onKeyDownCapture={askNotificationPermission}>
      <PageHeader title="Chat" subtitle={bot.name ?? undefined} actions={<OnlineBadge />} />
      <Inbox botName={bot.name ?? 'Bot'} canHandle={can(bot.role, 'handleSupport')} canEdit={can(bot.role, 'editMessage')} />
    </div>
  );
}
