// Bot Settings: abuse protection and URL whitelist of the active bot, saved on the server.
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
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
      <BotSettingsForm botId={bot._id} role={parseRole(bot.role)} readOnly={!can(bot.role, 'editBot')} />
    </>
  );
}
