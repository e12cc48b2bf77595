// The Chat Customization editor's working copy: filled from the selected bot (defaults where a
// field is missing), edited freely, saved to the bot with PUT /api/bots/{id}.
import { proxy } from 'valtio';
import { botsApi, type Bot } from '@/features/bots/api/bots';
import { updateBot } from '@/features/bots/stores/bots';
import { ApiError } from '@/lib/api';
import { onSignOut } from '@/lib/sign-out';
import { DEFAULTS, MAX_QUICK_QUESTIONS, RESET_DEFAULTS, savePayload, settingsFromBot, type CustomizeSettings } from './model';

export interface CustomizeState {
  botId: string | null;
  settings: CustomizeSettings;
  saving: boolean;
  /** Edited since the bot was loaded or saved. */
  dirty: boolean;
}

export const customize = proxy<CustomizeState>({ botId: null, settings: { ...DEFAULTS, customQuestions: [] }, saving: false, dirty: false });

/** Selecting a bot copies its fields into the editor. */
export function loadFromBot(bot: Partial<Bot> & { _id: string }): void {
  customize.botId = bot._id;
  customize.settings = settingsFromBot(bot);
}

/**
 * Opens the editor on a bot: its fields now (from the list), then the server's current copy,
 * unless the user has started editing meanwhile.
 */
export async function openBot(bot: Partial<Bot> & { _id: string }): Promise<void> {
  loadFromBot(bot);
  customize.dirty = false;
  try {
    const { bot: fresh } = await botsApi.get(bot._id);
    if (customize.botId === bot._id && !customize.dirty) loadFromBot(fresh);
  } catch {
    // Theme load failure is only logged: what the list had remains (spec 2 §8).
  }
}

export function setSetting<K extends keyof CustomizeSettings>(key: K, value: CustomizeSettings[K]): void {
  customize.settings[key] = value;
  customize.dirty = true;
}

export function setQuestion(index: number, value: string): void {
  customize.settings.customQuestions[index] = value;
  customize.dirty = true;
}

export function addQuestion(): void {
  if (customize.settings.customQuestions.length < MAX_QUICK_QUESTIONS) customize.settings.customQuestions.push('');
  customize.dirty = true;
}

export function removeQuestion(index: number): void {
  customize.settings.customQuestions.splice(index, 1);
  customize.dirty = true;
}

export function resetCustomization(): void {
  Object.assign(customize.settings, RESET_DEFAULTS);
  customize.dirty = true;
}

/** Saves to the bot; on failure the server's reason when it gave one. */
export async function saveCustomization(): Promise<{ ok: true } | { ok: false; reason: string | null }> {
  if (!customize.botId) return { ok: false, reason: null };
  customize.saving = true;
  try {
    const bot = await updateBot(customize.botId, savePayload(customize.settings));
    if (customize.botId === bot._id) {
      customize.settings = settingsFromBot(bot);
      customize.dirty = false;
    }
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof ApiError && err.message ? err.message : null };
  } finally {
    customize.saving = false;
  }
}

onSignOut(() => {
  customize.botId = null;
  customize.settings = { ...DEFAULTS, customQuestions: [] };
  customize.saving = false;
  customize.dirty = false;
});
