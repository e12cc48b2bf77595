// Sessions: the active bot's conversations, searchable and paged by the server.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { SessionsList } from '@/features/sessions/components/SessionsList';
import { PageHeader } from '@/components/PageHeader';
import { can } from '@/lib/permissions';

export function SessionsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return (
    <>
      <PageHeader title="Sessions" subtitle={bot?.name ?? undefined} />
      {bot && <SessionsList botId={bot._id} canDelete={can(bot.role, 'handleSupport')} canMark={can(bot.role, 'markSession')} />}
    </>
  );
}
