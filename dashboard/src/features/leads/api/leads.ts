// The Leads page's calls (http/src/routes/leads): the filtered, paged list, the figures, New
// Lead, the Edit form, the inline status, delete, and the export (a file, fetched with the
// bearer token and handed to the browser as a download).
import { api, ApiError, getToken } from '@/lib/api';

export type LeadStatus = 'new' | 'contacted' | 'qualified' | 'converted' | 'lost';
export type LeadPriority = 'low' | 'medium' | 'high' | 'urgent';
export type LeadSort = 'newest' | 'oldest' | 'score_high' | 'score_low' | 'name_asc' | 'name_desc';
export type ExportFormat = 'csv' | 'json';

/** A lead as the list sends it (http/src/views/leads.rs). */
export interface Lead {
  _id: string;
  id: string;
  botId: string;
  botName?: string | null;
  sessionId: string | null;
  sessionTitle?: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  status: LeadStatus | string;
  priority: LeadPriority | string;
  source: string;
  notes: string | null;
  tags: string[];
  leadScore: number | null;
  assignedTo: string | null;
  assignedToName?: string | null;
  capturedAt: string;
  lastContact: string | null;
}

export interface LeadPage {
  leads: Lead[];
  total: number;
  page: number;
  limit: number;
}

export interface MonthConversion {
  captured: number;
  converted: number;
  /** Percent, or null for a month without leads. */
  rate: number | null;
}

export interface LeadStats {
  total: number;
  new: number;
  contacted: number;
  qualified: number;
  converted: number;
  lost: number;
  withEmail: number;
  withName: number;
  withPhone: number;
  conversion: { thisMonth: MonthConversion; lastMonth: MonthConversion };
  sources: { source: string; count: number; percent: number }[];
}

export interface LeadQuery {
  botId: string;
  q: string;
  status: string;
  priority: string;
  sort: LeadSort;
}

/** What the Create and Edit forms send; empty text clears a field. */
export interface LeadInput {
  botId?: string;
  name: string;
  email: string;
  phone: string;
  company: string;
  status: string;
  priority: string;
  leadScore: number;
  notes: string;
  tags: string;
  assignedTo: string | null;
  lastContact: string | null;
}

/** The filter bar as query parameters ('all' and blanks left out). */
export function queryParams(q: Partial<LeadQuery>, extra: Record<string, string> = {}): URLSearchParams {
  const params = new URLSearchParams();
  if (q.botId && q.botId !== 'all') params.set('botId', q.botId);
  if (q.q?.trim()) params.set('q', q.q.trim());
  if (q.status && q.status !== 'all') params.set('status', q.status);
  if (q.priority && q.priority !== 'all') params.set('priority', q.priority);
  if (q.sort && q.sort !== 'newest') params.set('sort', q.sort);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params;
}

/** A member a lead can be assigned to. */
export interface Assignee {
  userId: string;
  name: string;
  email: string;
}

const one = (id: string) => `/leads/${encodeURIComponent(id)}`;

export const leadsApi = {
  list: (q: LeadQuery, page: number, limit: number, signal?: AbortSignal) =>
    api<LeadPage>(`/leads?${queryParams(q, { page: String(page), limit: String(limit) })}`, { signal }),
  stats: (botId: string) => api<{ stats: LeadStats }>(`/leads/stats?${queryParams({ botId })}`),
  create: (input: LeadInput) => api<{ lead: Lead }>('/leads', { method: 'POST', body: { ...input } }),
  update: (id: string, input: LeadInput) => api<{ lead: Lead }>(one(id), { method: 'PUT', body: { ...input } }),
  setStatus: (id: string, status: string) => api<{ lead: Lead }>(`${one(id)}/status`, { method: 'PATCH', body: { status } }),
  remove: (id: string) => api<{ ok: boolean }>(one(id), { method: 'DELETE' }),
  /** The bot's owner and active members (GET /api/bots/{id}/team). */
  async assignees(botId: string): Promise<Assignee[]> {
    const { members } = await api<{ members: { userId: string | null; name: string; email: string; status: string }[] }>(
      `/bots/${encodeURIComponent(botId)}/team`,
    );
    return members.filter((m) => m.status === 'active' && m.userId).map((m) => ({ userId: m.userId as string, name: m.name, email: m.email }));
  },
  /** The export file as a Blob and the name the server gave it. */
  async exportFile(format: ExportFormat, q: LeadQuery, ids?: string[]): Promise<{ blob: Blob; filename: string }> {
    const extra: Record<string, string> = { format };
    if (ids) extra.ids = ids.join(',');
    // A selection is exported whatever the filters say; the bot still bounds it.
    const params = ids ? queryParams({ botId: q.botId }, extra) : queryParams(q, extra);
    const token = getToken();
    const res = await fetch(`/api/leads/export?${params}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    if (!res.ok) throw new ApiError(res.status, 'export_failed', 'Failed to export leads');
    const disposition = res.headers.get('Content-Disposition') ?? '';
    const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `leads.${format}`;
    return { blob: await res.blob(), filename };
  },
};
