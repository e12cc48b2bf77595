// Chat — placeholder until its screen lands; shows only its real title.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';

export function BotChatRoute() {
  const bot = activeBot(useSnapshot(bots));
  return <PageHeader title="Chat" subtitle={bot?.name ?? undefined} />;
}
