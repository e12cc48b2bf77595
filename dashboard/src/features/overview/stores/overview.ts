// The dashboard overview's data: figures over all the user's bots, the active bot's performance,
// and the server's health. A failed fetch resets its data (spec 1 §4) rather than showing stale
// figures as if current.
import { proxy } from 'valtio';
import { onSignOut } from '@/lib/sign-out';
import { overviewApi, type BotStats, type DashboardStats, type Period } from '../api/overview';

/** How often the overview refreshes itself (spec 1 §9). */
export const REFRESH_MS = 30_000;

export type HealthState = 'unknown' | 'ok' | 'degraded' | 'unreachable';

export interface OverviewState {
  period: Period;
  dashboard: DashboardStats | null;
  dashboardLoading: boolean;
  botStats: BotStats | null;
  botStatsLoading: boolean;
  api: HealthState;
  database: HealthState;
}

const initial = (): OverviewState => ({
  period: '7d',
  dashboard: null,
  dashboardLoading: false,
  botStats: null,
  botStatsLoading: false,
  api: 'unknown',
  database: 'unknown',
});

export const overview = proxy<OverviewState>(initial());

export async function loadDashboardStats(period: Period = overview.period): Promise<void> {
  overview.period = period;
  overview.dashboardLoading = true;
  try {
    const stats = await overviewApi.dashboard(period);
    // A slower answer for a period since abandoned must not overwrite the chosen one.
    if (overview.period === period) overview.dashboard = stats;
  } catch {
    if (overview.period === period) overview.dashboard = null;
  } finally {
    overview.dashboardLoading = false;
  }
}

export async function loadBotStats(botId: string | null): Promise<void> {
  if (!botId) {
    overview.botStats = null;
    return;
  }
  overview.botStatsLoading = true;
  try {
    const stats = await overviewApi.bot(botId);
    overview.botStats = stats;
  } catch {
    overview.botStats = null;
  } finally {
    overview.botStatsLoading = false;
  }
}

export async function loadHealth(): Promise<void> {
  try {
    const h = await overviewApi.health();
    overview.api = 'ok';
    overview.database = h.database === 'ok' ? 'ok' : 'degraded';
  } catch (err) {
    // 503 means the API answers but the database does not.
    const status = (err as { status?: number }).status ?? 0;
    overview.api = status === 503 ? 'ok' : 'unreachable';
    overview.database = status === 503 ? 'degraded' : 'unknown';
  }
}

/** '+12.5%', '-3%', '+0%'; 'New' when the previous period had nothing to compare with. */
export function formatGrowth(change: number | null | undefined): string {
  if (change === undefined) return '+0%';
  if (change === null) return 'New';
  const rounded = Math.round(change * 10) / 10;
  return `${rounded >= 0 ? '+' : ''}${rounded}%`;
}

/** Milliseconds as seconds with one decimal ('1.3s'); '—' without data. */
export function formatSeconds(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : `${(ms / 1000).toFixed(1)}s`;
}

export function formatPercent(p: number | null | undefined): string {
  return p === null || p === undefined ? '—' : `${p.toFixed(1)}%`;
}

onSignOut(() => Object.assign(overview, initial()));
