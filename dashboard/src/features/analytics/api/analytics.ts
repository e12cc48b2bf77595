import { api } from '@/lib/api';
import type { Period } from '@/features/overview/api/overview';

/** One bucket's figures, or the whole period's (GET /api/bots/{id}/analytics). */
export interface Figures {
  conversations: number;
  messages: { visitor: number; bot: number; agent: number };
  handoffs: number;
  resolved: number;
  /** Agents' first responses to requests for a person, nearest-rank percentiles in seconds. */
  firstResponse: { medianSeconds: number | null; p90Seconds: number | null; answered: number };
  csat: { average: number | null; count: number };
  /** Bot answers without knowledge behind them ("I don't know"). */
  refused: number;
  leads: number;
}

export interface Bucket extends Figures {
  /** Local start of the bucket with its offset, `2026-11-25T00:00:00+02:00`. */
  start: string;
}

export interface UnansweredQuestion {
  question: string;
  count: number;
  lastAskedAt: string;
}

export interface BotAnalytics {
  botId: string;
  period: Period;
  tz: string;
  bucket: 'hour' | 'day';
  from: string;
  to: string;
  buckets: Bucket[];
  totals: Figures;
  topUnanswered: UnansweredQuestion[];
}

export const analyticsApi = {
  bot: (botId: string, period: Period, tz: string, signal?: AbortSignal) =>
    api<BotAnalytics>(`/bots/${encodeURIComponent(botId)}/analytics?period=${period}&tz=${encodeURIComponent(tz)}`, { signal }),
};
