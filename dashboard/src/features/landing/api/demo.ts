import { api } from '@/lib/api';

/** GET /api/demo: the bot that answers on the landing page, unless PARLEY_DEMO_BOT=off. */
export interface Demo {
  enabled: boolean;
  botId: string | null;
}

export const demoApi = {
  get: () => api<Demo>('/demo'),
};
