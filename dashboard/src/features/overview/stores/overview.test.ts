import { beforeEach, describe, expect, it } from 'vitest';
import { mockFetch } from '../../../../test-utils/fetch';
import {
  formatGrowth,
  formatPercent,
  formatSeconds,
  loadBotStats,
  loadDashboardStats,
  loadHealth,
  overview,
} from './overview';
import { runSignOutResets } from '@/lib/sign-out';

const figures = (totalConversations: number) => ({
  period: '7d',
  stats: { totalBots: 1, activeBots: 1, totalConversations, totalMessages: 8, activeUsers: 2, resolvedSessions: 1, creditsUsed: 4 },
  growth: { conversations: 50, users: null, resolution: 0, credits: -12.5 },
  recentActivity: [],
});

describe('overview store', () => {
  beforeEach(() => runSignOutResets());

  it('loads the figures for the chosen period and resets them when the call fails', async () => {
    const calls = mockFetch({ 'GET /api/dashboard/stats': { body: figures(4) } });
    await loadDashboardStats('30d');
    expect(calls[0].path).toBe('/api/dashboard/stats');
    expect(overview.period).toBe('30d');
    expect(overview.dashboard?.stats.totalConversations).toBe(4);

    mockFetch({ 'GET /api/dashboard/stats': { status: 500, body: { error: { code: 'internal', message: 'boom' } } } });
    await loadDashboardStats();
    expect(overview.dashboard).toBeNull();
  });

  it('keeps the answer of the period last chosen when an older one arrives late', async () => {
    let release: (v: Response) => void = () => {};
    const slow = new Promise<Response>((r) => (release = r));
    let first = true;
    mockFetch({
      'GET /api/dashboard/stats': () => {
        if (first) {
          first = false;
          return slow as never;
        }
        return { body: { ...figures(9), period: '90d' } };
      },
    });
    const stale = loadDashboardStats('24h');
    await loadDashboardStats('90d');
    release(new Response(JSON.stringify(figures(1)), { status: 200 }));
    await stale;
    expect(overview.period).toBe('90d');
    expect(overview.dashboard?.stats.totalConversations).toBe(9);
  });

  it('bot statistics follow the active bot and clear without one', async () => {
    mockFetch({ 'GET /api/bots/b1/stats': { body: { botId: 'b1', totalMessages: 3, totalConversations: 1, activeUsers: 1, averageResponseTime: 1250, resolutionRate: 50, lastUpdated: null } } });
    await loadBotStats('b1');
    expect(overview.botStats?.averageResponseTime).toBe(1250);
    await loadBotStats(null);
    expect(overview.botStats).toBeNull();
  });

  it('health tells the API and the database apart', async () => {
    mockFetch({ 'GET /api/health': { body: { status: 'ok', database: 'ok' } } });
    await loadHealth();
    expect([overview.api, overview.database]).toEqual(['ok', 'ok']);
    mockFetch({ 'GET /api/health': { status: 503, body: { status: 'degraded', database: 'error' } } });
    await loadHealth();
    expect([overview.api, overview.database]).toEqual(['ok', 'degraded']);
    mockFetch({ 'GET /api/health': Promise.reject(new TypeError('offline')) });
    await loadHealth();
    expect(overview.api).toBe('unreachable');
  });

  it('formats growth, seconds and percentages as the cards show them', () => {
    expect(formatGrowth(undefined)).toBe('+0%');
    expect(formatGrowth(0)).toBe('+0%');
    expect(formatGrowth(50)).toBe('+50%');
    expect(formatGrowth(-12.54)).toBe('-12.5%');
    expect(formatGrowth(null)).toBe('New');
    expect(formatSeconds(1250)).toBe('1.3s');
    expect(formatSeconds(null)).toBe('—');
    expect(formatPercent(66.666)).toBe('66.7%');
    expect(formatPercent(null)).toBe('—');
  });
});
