// The test chat talks to the real bot: POST /api/chat (http/src/routes/chat/send.rs). A new
// conversation answers with a visitor token that later messages of it must bring back.
import { api } from '@/lib/api';

export interface LeadData {
  name?: string;
  email?: string;
  phone?: string;
  company?: string;
}

export interface ChatRequest {
  message: string;
  botId: string;
  sessionId?: string;
  visitorToken?: string;
  leadData?: LeadData;
}

export interface ChatResponse {
  sessionId: string;
  aiResponse: string | null;
  visitorToken: string;
  agentConnected?: boolean;
  offerHandoff?: boolean;
  /** "Did you mean" quick replies when the bot was not sure (empty otherwise). */
  suggestions?: string[];
}

export const chatApi = {
  send: (body: ChatRequest) => api<ChatResponse>('/chat', { method: 'POST', body: { ...body } }),
};
