// Bot Settings: the active bot's details and active switch, then its abuse protection and URL
// whitelist, saved on the server.
import { Space } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { BotDetailsCard } from '@/features/bots/components/BotDetailsCard';
import type { Bot } from '@/features/bots/api/bots';
import { BotSettingsForm } from '@/features/settings/components/BotSettingsForm';
import { PageHeader } from '@/components/PageHeader';
import { NoBot } from '@/components/NoBot';
import { can, parseRole } from '@/lib/permissions';

export function BotSettingsRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot) return <NoBot title="No Bot Selected" message="Please select a bot to configure its settings." />;
  return (
    <>
      <PageHeader title="Bot Settings" subtitle={bot.name ?? undefined} />
      <BotDetailsCard bot={bot as Bot} readOnly={!can(bot.role, 'editBot')} />
      <Space h="lg" />
      <BotSettingsForm botId={bot._id} role={parseRole(bot.role)} readOnly={!can(bot.role, 'editBot')} />
    </>
  );
}
