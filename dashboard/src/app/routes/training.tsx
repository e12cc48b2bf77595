// Training: the active bot's knowledge sources (spec 1 §2 "Training page").
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { NoBot } from '@/components/NoBot';
import { can, parseRole } from '@/lib/permissions';
import { TrainingPage } from '@/features/training/components/TrainingPage';

export function TrainingRoute() {
  const bot = activeBot(useSnapshot(bots));
  if (!bot) return <NoBot title="No Bot Selected" message="Please select a bot to manage its training data." action />;
  return (
    <TrainingPage
      botId={bot._id}
      botName={bot.name || 'Untitled Assistant'}
      role={parseRole(bot.role)}
      readOnly={!can(bot.role, 'editBot')}
    />
  );
}
