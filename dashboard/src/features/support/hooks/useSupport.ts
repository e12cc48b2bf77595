// Keeps the support store working on the active bot while a support screen is open.
import { useEffect } from 'react';
import { useSnapshot } from 'valtio';
import { session } from '@/features/auth/stores/session';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { loadPushPreference } from '../stores/alerts';
import { startSupport, type SupportView } from '../stores/support';

/** Starts the store for the active bot (again when the bot or the user changes); the bot. */
export function useSupport(view: SupportView) {
  const bot = activeBot(useSnapshot(bots));
  const { user } = useSnapshot(session);
  const botId = bot?._id ?? null;
  const me = user?._id ?? null;

  useEffect(() => {
    if (me) void loadPushPreference();
  }, [me]);

  useEffect(() => {
    if (!botId) return;
    return startSupport(botId, me, view);
  }, [botId, me, view]);

  return bot;
}
