// The test chat talks to the real bot: POST /api/chat (http/src/routes/chat/send.rs). A new
// conversation answers with a visitor token that later messages of it must bring back, and the
// lead form's details are left as the visitor chat leaves them (`leave-details`).
import { io } from 'socket.io-client';
import { api } from '@/lib/api';
import { withBusyRetry } from '@/lib/busy';

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

const DETAILS_TIMEOUT_MS = 15_000;

/**
 * Saves the lead form's details at once, as the visitor of the conversation: the widget's
 * `leave-details` event on a live connection of its own, opened with the conversation's visitor
 * token (not the tab's member connection, which would leave them as a team member, and only
 * with a support role). Rejects with the server's words when it refuses them.
 */
async function leaveDetails(visitorToken: string, sessionId: string, leadData: LeadData): Promise<void> {
  // forceNew: never share the tab's member connection to the same origin.
  const socket = io('/', { auth: { visitorToken }, transports: ['websocket', 'polling'], forceNew: true, reconnection: false });
  try {
    const ack = (await withBusyRetry(() =>
      socket.timeout(DETAILS_TIMEOUT_MS).emitWithAck('leave-details', { sessionId, leadData }),
    )) as { success?: boolean; error?: string } | undefined;
    if (!ack || ack.success === false) throw new Error(ack?.error || 'Please try again');
  } finally {
    socket.close();
  }
}

export const chatApi = {
  send: (body: ChatRequest) => api<ChatResponse>('/chat', { method: 'POST', body: { ...body } }),
  leaveDetails,
};
