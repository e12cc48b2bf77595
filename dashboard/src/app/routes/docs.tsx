// Documentation: how to embed, train, hand off to people, and the team roles.
import { useSnapshot } from 'valtio';
import { PageHeader } from '@/components/PageHeader';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { Documentation } from '@/features/settings/components/Documentation';

export function DocsRoute() {
  const bot = activeBot(useSnapshot(bots));
  return (
    <>
      <PageHeader title="Documentation" subtitle="Everything you need to run your assistant" />
      <Documentation bot={bot ? { id: bot._id, name: bot.name } : null} />
    </>
  );
}
