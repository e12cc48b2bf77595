// Training sources of one bot: GET/POST/DELETE /api/bots/{id}/sources and POST /train
// (http/src/routes/bots/sources.rs). Adding answers 201 with the source as `processing`; the
// server trains it in the background.
import { api } from '@/lib/api';

export type TrainingStatus = 'processing' | 'completed' | 'failed';
export type SourceKind = 'pdf' | 'website' | 'text' | 'qa';

export interface Source {
  _id: string;
  id: string;
  kind: SourceKind;
  status: TrainingStatus;
  error: string | null;
  name?: string | null;
  url?: string | null;
  content?: string | null;
  sizeBytes?: number | null;
  pages?: number | null;
  question?: string;
  answer?: string;
  createdAt: string;
  updatedAt: string;
}

export interface SourcesResponse {
  counts: { pdf: number; websites: number; text: number; qa: number };
  pdf: Source[];
  websites: Source[];
  text: Source[];
  qa: Source[];
  knowledgeVersion?: number;
}

const base = (botId: string) => `/bots/${encodeURIComponent(botId)}`;

export const sourcesApi = {
  list: (botId: string) => api<SourcesResponse>(`${base(botId)}/sources`),
  addPdf: (botId: string, file: File) => {
    const form = new FormData();
    form.append('file', file);
    return api<{ source: Source }>(`${base(botId)}/sources/pdf`, { method: 'POST', body: form });
  },
  addWebsite: (botId: string, url: string) =>
    api<{ source: Source }>(`${base(botId)}/sources/website`, { method: 'POST', body: { url } }),
  addText: (botId: string, name: string, content: string) =>
    api<{ source: Source }>(`${base(botId)}/sources/text`, {
      method: 'POST',
      body: name.trim() ? { name: name.trim(), content } : { content },
    }),
  addQa: (botId: string, question: string, answer: string) =>
    api<{ source: Source }>(`${base(botId)}/sources/qa`, { method: 'POST', body: { question, answer } }),
  remove: (botId: string, sourceId: string) =>
    api<void>(`${base(botId)}/sources/${encodeURIComponent(sourceId)}`, { method: 'DELETE' }),
  train: (botId: string) => api<{ training: boolean }>(`${base(botId)}/train`, { method: 'POST' }),
};
