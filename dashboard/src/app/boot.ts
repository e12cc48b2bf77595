// Start-up: restore the persisted state (`root`), refresh the session (at most LOAD_TIMEOUT_MS),
// then load the signed-in user's bots.
import { bootSession, isSignedIn, session } from '@/features/auth/stores/session';
import { loadBots, persistBots } from '@/features/bots/stores/bots';

let stopPersistingBots: (() => void) | null = null;

export async function boot(): Promise<void> {
  stopPersistingBots?.();
  stopPersistingBots = persistBots();
  await bootSession();
  if (isSignedIn(session)) void loadBots();
}
