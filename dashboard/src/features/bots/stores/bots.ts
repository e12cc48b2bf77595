// The user's bots and which one is active (the one Bot Management screens work on).
import { proxy } from 'valtio';
import { persistSlice } from '@/lib/persist';
import { onSignOut } from '@/lib/sign-out';
import { botsApi, type Bot, type BotStatus, type CreateBotInput } from '../api/bots';

export interface BotsState {
  bots: Bot[];
  activeBotId: string | null;
  loading: boolean;
}

export const bots = proxy<BotsState>({ bots: [], activeBotId: null, loading: false });

export const PERSISTED_BOTS_FIELDS = ['bots', 'activeBotId'] as const;

export function persistBots(): () => void {
  return persistSlice('bots', bots, PERSISTED_BOTS_FIELDS);
}

/** Works on the store and on its snapshots alike. */
export function activeBot<B extends Pick<Bot, '_id'>>(s: { bots: readonly B[]; activeBotId: string | null }): B | null {
  return s.bots.find((b) => b._id === s.activeBotId) ?? null;
}

/**
 * Reloads the list from the server. `keepOnError`: a failed refresh leaves the list as it was
 * (a background refresh must not empty the screen over a network blip).
 */
export async function loadBots({ keepOnError = false }: { keepOnError?: boolean } = {}): Promise<void> {
  bots.loading = true;
  try {
    const { bots: list } = await botsApi.list();
    bots.bots = list;
    // An active bot that is gone (deleted elsewhere, access removed) is no longer active.
    if (bots.activeBotId && !list.some((b) => b._id === bots.activeBotId)) bots.activeBotId = null;
  } catch {
    if (!keepOnError) bots.bots = [];
  } finally {
    bots.loading = false;
  }
}

export function selectBot(id: string | null): void {
  bots.activeBotId = id;
}

/** Creates the bot, then reloads the list; throws the ApiError for the wizard to show. */
export async function createBot(input: CreateBotInput): Promise<Bot> {
  const { bot } = await botsApi.create(input);
  await loadBots();
  return bot;
}

/** Saves a partial update (bot and widget fields) and puts the server's bot in the list. */
export async function updateBot(id: string, patch: Partial<Bot>): Promise<Bot> {
  const { bot } = await botsApi.update(id, patch);
  bots.bots = bots.bots.map((b) => (b._id === id ? bot : b));
  return bot;
}

/** Turns the bot on or off for visitors (the caller confirmed first); throws the ApiError. */
export async function setBotStatus(id: string, status: BotStatus): Promise<Bot> {
  return updateBot(id, { status });
}

/** Puts a bot the server answered with (an icon upload) in the list. */
export function replaceBot(bot: Bot): void {
  bots.bots = bots.bots.map((b) => (b._id === bot._id ? bot : b));
}

export async function deleteBot(id: string): Promise<void> {
  await botsApi.remove(id);
  bots.bots = bots.bots.filter((b) => b._id !== id);
  if (bots.activeBotId === id) bots.activeBotId = null;
}

onSignOut(() => {
  bots.bots = [];
  bots.activeBotId = null;
  bots.loading = false;
});
