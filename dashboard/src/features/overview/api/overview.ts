import { api } from '@/lib/api';

export type Period = '24h' | '7d' | '30d' | '90d';

/** Percentage change against the previous period; null when that period had nothing. */
export interface Growth {
  conversations: number | null;
  users: number | null;
  resolution: number | null;
  credits: number | null;
}

export interface ActivityEntry {
  id: string;
  action: string;
  time: string;
  type: string;
  botName: string | null;
}

/** GET /api/dashboard/stats: over every bot the user can see. */
export interface DashboardStats {
  period: Period;
  stats: {
    totalBots: number;
    activeBots: number;
    totalConversations: number;
    totalMessages: number;
    activeUsers: number;
    resolvedSessions: number;
    creditsUsed: number;
  };
  growth: Growth;
  recentActivity: ActivityEntry[];
}

/** GET /api/bots/{id}/stats: the Bot Performance panel. */
export interface BotStats {
  botId: string;
  totalMessages: number;
  totalConversations: number;
  activeUsers: number;
  /** Milliseconds; null before any reply. */
  averageResponseTime: number | null;
  /** Percent; null without conversations. */
  resolutionRate: number | null;
  lastUpdated: string | null;
}

export interface Health {
  status: string;
  database: string;
}

export const overviewApi = {
  dashboard: (period: Period) => api<DashboardStats>(`/dashboard/stats?period=${period}`),
  bot: (botId: string) => api<BotStats>(`/bots/${encodeURIComponent(botId)}/stats`),
  health: () => api<Health>('/health'),
};
