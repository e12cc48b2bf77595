// Bot Settings (abuse protection): the maximum chat text size and the URL whitelist of the active
// bot, loaded from and saved to the server.
import { proxy } from 'valtio';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { botSettingsApi } from '../api/settings';

export const MIN_CHAT_TEXT_SIZE = 100;
export const MAX_CHAT_TEXT_SIZE = 10000;
export const DEFAULT_CHAT_TEXT_SIZE = 1000;
export const CHAT_TEXT_SIZE_RANGE = `Maximum chat text size must be between ${MIN_CHAT_TEXT_SIZE} and ${MAX_CHAT_TEXT_SIZE}`;

/** Spec §5: a non-number becomes 0 (which the range then refuses). */
export function toChatTextSize(raw: string | number): number {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : 0;
  const trimmed = raw.trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return 0;
  return Number(trimmed);
}

/** The refusal message for a size, or null when it is allowed. */
export function chatTextSizeError(raw: string | number): string | null {
  const n = toChatTextSize(raw);
  if (!Number.isInteger(n) || n < MIN_CHAT_TEXT_SIZE || n > MAX_CHAT_TEXT_SIZE) return CHAT_TEXT_SIZE_RANGE;
  return null;
}

/** Adds a trimmed, non-empty entry; an entry already listed is ignored. */
export function addEntry(list: readonly string[], raw: string): string[] {
  const entry = raw.trim();
  if (!entry || list.includes(entry)) return [...list];
  return [...list, entry];
}

export interface BotSettingsState {
  botId: string | null;
  loading: boolean;
  saving: boolean;
  /** What the size field holds: a number, or the text typed when it is not one. */
  size: string | number;
  whitelist: string[];
  entry: string;
  loadError: string | null;
}

const initial = (): BotSettingsState => ({
  botId: null,
  loading: false,
  saving: false,
  size: DEFAULT_CHAT_TEXT_SIZE,
  whitelist: [],
  entry: '',
  loadError: null,
});

export const botSettings = proxy<BotSettingsState>(initial());

export async function loadBotSettings(botId: string): Promise<void> {
  Object.assign(botSettings, initial(), { botId, loading: true });
  try {
    const s = await botSettingsApi.get(botId);
    if (botSettings.botId !== botId) return; // another bot was picked meanwhile
    botSettings.size = s.maxChatTextSize;
    botSettings.whitelist = [...s.urlWhitelist];
  } catch (err) {
    if (botSettings.botId !== botId) return;
    botSettings.loadError = errorMessage(err, 'Failed to load bot settings');
  } finally {
    if (botSettings.botId === botId) botSettings.loading = false;
  }
}

export const botSettingsActions = {
  setSize(value: string | number) {
    botSettings.size = value;
  },
  setEntry(value: string) {
    botSettings.entry = value;
  },
  addEntry() {
    botSettings.whitelist = addEntry(botSettings.whitelist, botSettings.entry);
    botSettings.entry = '';
  },
  removeEntry(entry: string) {
    botSettings.whitelist = botSettings.whitelist.filter((e) => e !== entry);
  },
  /** Saves for real; refuses an out-of-range size without calling. Returns whether it saved. */
  async save(): Promise<boolean> {
    const botId = botSettings.botId;
    if (!botId || botSettings.saving) return false;
    const refusal = chatTextSizeError(botSettings.size);
    if (refusal) {
      notify.error('Settings not saved', refusal);
      return false;
    }
    botSettings.saving = true;
    try {
      const saved = await botSettingsApi.save(botId, {
        maxChatTextSize: toChatTextSize(botSettings.size),
        urlWhitelist: [...botSettings.whitelist],
      });
      if (botSettings.botId === botId) {
        botSettings.size = saved.maxChatTextSize;
        botSettings.whitelist = [...saved.urlWhitelist];
      }
      notify.success('Settings saved', 'Bot settings were saved');
      return true;
    } catch (err) {
      notify.error('Settings not saved', errorMessage(err, 'Failed to save bot settings'));
      return false;
    } finally {
      botSettings.saving = false;
    }
  },
};

onSignOut(() => Object.assign(botSettings, initial()));
