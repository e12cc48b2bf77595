// Customize: the active bot's chat look and behaviour, with a live test chat (spec 2 §2).
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { NoBot } from '@/components/NoBot';
import { can } from '@/lib/permissions';
import type { Bot } from '@/features/bots/api/bots';
import { CustomizePage } from '@/features/customize/components/CustomizePage';

export function PreviewRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot) return <NoBot title="No Bot Selected" message="Please select a bot to customize its chat." action />;
  return <CustomizePage bot={bot as Bot} readOnly={!can(bot.role, 'editBot')} />;
}
