// The /stats charts' data for the active bot, and a week of conversations per bot for the
// sparklines on /dashboard. A failed fetch clears the data it was for (spec 1 §4): the screen
// shows its error state rather than stale figures as if current.
import { proxy } from 'valtio';
import { errorMessage } from '@/lib/api';
import { onSignOut } from '@/lib/sign-out';
import type { Period } from '@/features/overview/api/overview';
import { analyticsApi, type BotAnalytics } from '../api/analytics';
import { sparkline, viewerZone } from '../lib/series';

export interface AnalyticsState {
  botId: string | null;
  period: Period;
  data: BotAnalytics | null;
  loading: boolean;
  error: string | null;
  /** Conversations per day of the last 7 days, by bot id. */
  sparklines: Record<string, number[]>;
}

const initial = (): AnalyticsState => ({ botId: null, period: '7d', data: null, loading: false, error: null, sparklines: {} });

export const analytics = proxy<AnalyticsState>(initial());

let latest = 0;

export async function loadAnalytics(botId: string | null, period: Period): Promise<void> {
  const ticket = ++latest;
  if (analytics.botId !== botId || analytics.period !== period) analytics.data = null;
  analytics.botId = botId;
  analytics.period = period;
  if (!botId) return;
  analytics.loading = true;
  analytics.error = null;
  try {
    const data = await analyticsApi.bot(botId, period, viewerZone());
    // A slower answer for a bot or period since left must not overwrite the chosen one.
    if (ticket === latest) analytics.data = data;
  } catch (err) {
    if (ticket === latest) {
      analytics.data = null;
      analytics.error = errorMessage(err, 'Could not load analytics');
    }
  } finally {
    if (ticket === latest) analytics.loading = false;
  }
}

export async function loadSparklines(botIds: readonly string[]): Promise<void> {
  const tz = viewerZone();
  await Promise.all(
    botIds.map(async (id) => {
      try {
        analytics.sparklines[id] = sparkline(await analyticsApi.bot(id, '7d', tz));
      } catch {
        delete analytics.sparklines[id];
      }
    }),
  );
}

onSignOut(() => Object.assign(analytics, initial()));
