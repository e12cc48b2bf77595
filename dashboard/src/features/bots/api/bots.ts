import { api } from '@/lib/api';

export type BotStatus = 'active' | 'inactive';
export type FaqMethod = 'skip' | 'upload' | 'text';

/** A bot as the server sends it: identity and status, plus every widget field (camelCase). */
export interface Bot {
  _id: string;
  id: string;
  name: string | null;
  description: string | null;
  icon: string | null;
  status: BotStatus;
  lastActive: string | null;
  role?: string;
  websiteUrl?: string | null;
  systemPrompt?: string | null;
  welcomeMessage?: string | null;
  primaryColour?: string | null;
  customQuestions?: string[];
  enableHandover?: boolean;
  /** Conversations this bot has had (in the list only). */
  conversationCount?: number;
  [field: string]: unknown;
}

export interface CreateBotInput {
  name: string;
  websiteUrl?: string;
  faqMethod: FaqMethod;
  faqFile?: File | null;
  faqText?: string;
  icon?: File | null;
}

export function createBotForm(input: CreateBotInput): FormData {
  const form = new FormData();
  form.append('name', input.name.trim());
  if (input.websiteUrl?.trim()) form.append('websiteUrl', input.websiteUrl.trim());
  form.append('faqMethod', input.faqMethod);
  if (input.faqMethod === 'upload' && input.faqFile) form.append('faqFile', input.faqFile);
  if (input.faqMethod === 'text' && input.faqText) form.append('faqText', input.faqText);
  if (input.icon) form.append('icon', input.icon);
  return form;
}

export const botsApi = {
  list: () => api<{ bots: Bot[] }>('/bots'),
  get: (id: string) => api<{ bot: Bot }>(`/bots/${encodeURIComponent(id)}`),
  create: (input: CreateBotInput) =>
    api<{ bot: Bot }>('/bots', { method: 'POST', body: createBotForm(input) }),
  update: (id: string, patch: Partial<Bot>) =>
    api<{ bot: Bot }>(`/bots/${encodeURIComponent(id)}`, { method: 'PUT', body: patch }),
  remove: (id: string) => api<void>(`/bots/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  /** Replaces the icon (multipart field `icon`); answers with the bot. */
  uploadIcon: (id: string, file: File) => {
    const form = new FormData();
    form.append('icon', file);
    return api<{ bot: Bot }>(`/bots/${encodeURIComponent(id)}/icon`, { method: 'POST', body: form });
  },
  /** Adds the website as a training source, crawled in the background (the Training screen's call). */
  crawlWebsite: (id: string, url: string) =>
    api<{ source: { _id: string; status: string } }>(`/bots/${encodeURIComponent(id)}/sources/website`, {
      method: 'POST',
      body: { url },
    }),
};
