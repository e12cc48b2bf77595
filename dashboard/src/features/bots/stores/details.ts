// Bot Settings' details card: a bot's name, description, website and icon after creation. The
// checks use the create wizard's and the server's words (http/src/domain.rs, routes/bots/crud.rs)
// so a refusal reads the same wherever it comes from. A form is a proxy per bot (createDetailsForm).
// A changed website is offered for crawling once saved: the bot answers from its training data,
// not from its website field, so a new site is only read when the owner says so.
import { proxy, ref } from 'valtio';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
// The landing box's check: one reading of a typed website across the app.
import { checkWebsiteUrl } from '@/features/landing/lib/website-url';
import { botsApi, type Bot } from '../api/bots';
import { replaceBot, updateBot } from './bots';
import { NAME_REQUIRED } from './wizard';

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 500;
export const NAME_TOO_LONG = `Bot name must be at most ${NAME_MAX} characters`;
export const DESCRIPTION_TOO_LONG = `Description must be at most ${DESCRIPTION_MAX} characters`;
export const ICON_NOT_IMAGE = 'Bot icon must be an image (PNG, JPEG, GIF or WebP)';

export interface DetailsValues {
  name: string;
  description: string;
  websiteUrl: string;
}

export interface DetailsErrors {
  name?: string;
  description?: string;
  websiteUrl?: string;
}

export function valuesOf(bot: Pick<Bot, 'name' | 'description' | 'websiteUrl'>): DetailsValues {
  return { name: bot.name ?? '', description: bot.description ?? '', websiteUrl: bot.websiteUrl ?? '' };
}

/** What is wrong with the values, field by field; empty when they can be saved. */
export function detailsErrors(v: DetailsValues): DetailsErrors {
  const errors: DetailsErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = NAME_REQUIRED;
  else if ([...name].length > NAME_MAX) errors.name = NAME_TOO_LONG;
  if ([...v.description.trim()].length > DESCRIPTION_MAX) errors.description = DESCRIPTION_TOO_LONG;
  if (v.websiteUrl.trim()) {
    const check = checkWebsiteUrl(v.websiteUrl);
    if (!check.ok) errors.websiteUrl = check.error;
  }
  return errors;
}

/**
 * The fields that differ from the bot, ready for `PUT /api/bots/{id}`: trimmed, the website
 * normalised (a bare domain as https) and an emptied website sent as '' (the server clears it).
 */
export function detailsPatch(bot: Pick<Bot, 'name' | 'description' | 'websiteUrl'>, v: DetailsValues): Partial<Bot> {
  const was = valuesOf(bot);
  const patch: Partial<Bot> = {};
  if (v.name.trim() !== was.name.trim()) patch.name = v.name.trim();
  if (v.description.trim() !== was.description.trim()) patch.description = v.description.trim();
  const site = v.websiteUrl.trim();
  if (site !== was.websiteUrl.trim()) {
    const check = checkWebsiteUrl(site);
    const normalised = site && check.ok ? check.url : site;
    if (normalised !== was.websiteUrl) patch.websiteUrl = normalised;
  }
  return patch;
}

export interface DetailsState extends DetailsValues {
  botId: string;
  icon: File | null;
  iconError: string | null;
  saving: boolean;
  /** The new website, saved and waiting for the owner's answer to "crawl it?". */
  crawlOffer: string | null;
  crawling: boolean;
}

export type DetailsForm = ReturnType<typeof createDetailsForm>;

export function createDetailsForm(bot: Bot) {
  const state = proxy<DetailsState>({
    botId: bot._id,
    ...valuesOf(bot),
    icon: null,
    iconError: null,
    saving: false,
    crawlOffer: null,
    crawling: false,
  });
  let saved: Bot = bot;

  const actions = {
    setName: (v: string) => void (state.name = v),
    setDescription: (v: string) => void (state.description = v),
    setWebsiteUrl: (v: string) => void (state.websiteUrl = v),
    setIcon(file: File | null) {
      if (file && !file.type.startsWith('image/')) {
        state.icon = null;
        state.iconError = ICON_NOT_IMAGE;
        return;
      }
      state.icon = file ? ref(file) : null;
      state.iconError = null;
    },
    /** Saves the changed fields, then the icon; offers a crawl when the website changed. */
    async save(): Promise<boolean> {
      if (state.saving || Object.keys(detailsErrors(state)).length > 0) return false;
      const patch = detailsPatch(saved, state);
      if (Object.keys(patch).length === 0 && !state.icon) return false;
      state.saving = true;
      try {
        if (Object.keys(patch).length > 0) saved = await updateBot(state.botId, patch);
        if (state.icon) {
          const { bot: withIcon } = await botsApi.uploadIcon(state.botId, state.icon);
          replaceBot(withIcon);
          saved = withIcon;
          state.icon = null;
        }
        Object.assign(state, valuesOf(saved));
        notify.success('Details saved', 'The assistant was updated');
        if (patch.websiteUrl && saved.websiteUrl) state.crawlOffer = saved.websiteUrl;
        return true;
      } catch (err) {
        notify.error('Details not saved', errorMessage(err, 'Failed to save the details'));
        return false;
      } finally {
        state.saving = false;
      }
    },
    /** Starts the crawl of the offered website as a new training source. */
    async crawl(): Promise<boolean> {
      const url = state.crawlOffer;
      if (!url || state.crawling) return false;
      state.crawling = true;
      try {
        await botsApi.crawlWebsite(state.botId, url);
        state.crawlOffer = null;
        notify.success('Crawling website', `${url} is being read into the training data. The Training page shows its progress.`);
        return true;
      } catch (err) {
        notify.error('Website not crawled', errorMessage(err, 'Failed to start the crawl'));
        return false;
      } finally {
        state.crawling = false;
      }
    },
    declineCrawl: () => void (state.crawlOffer = null),
  };
  return { state, actions };
}
