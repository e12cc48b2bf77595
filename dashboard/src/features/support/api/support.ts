// The agent workspace's REST calls (spec 2 §7), typed from the server's JSON (camelCase, `_id`).
import { api } from '@/lib/api';
import { viewerZone } from '@/features/analytics/lib/series';

export type SessionStatus = 'active' | 'pending' | 'resolved' | (string & {});
export type Priority = 'low' | 'medium' | 'high' | 'urgent';
export type Role = 'user' | 'bot' | 'system' | 'agent' | (string & {});

export interface ChatMessage {
  _id: string;
  id?: string;
  sessionId?: string;
  seq?: number;
  role: Role;
  sender?: Role;
  content: string;
  timestamp: string;
  isAgent?: boolean;
  agentName?: string | null;
  senderName?: string | null;
  isError?: boolean;
  editedAt?: string | null;
  /** Local: a bot reply still streaming in (message-delta before its new-message). */
  streaming?: boolean;
}

export interface AgentRef {
  _id: string;
  id?: string;
  name?: string | null;
}

export interface ChatSession {
  _id: string;
  id?: string;
  botId?: string;
  title?: string | null;
  name?: string | null;
  status: SessionStatus;
  priority?: Priority | null;
  tags?: readonly string[];
  needsHumanSupport?: boolean;
  assignedAgent?: AgentRef | null;
  customerName?: string | null;
  customerEmail?: string | null;
  humanSupportRequestedAt?: string | null;
  resolvedAt?: string | null;
  resolvedBy?: string | null;
  rating?: number | null;
  /** The visitor's own feedback. */
  feedback?: string | null;
  /** The agent's private notes from resolving it (the resolve call's `feedback`). */
  resolutionNotes?: string | null;
  messageCount?: number;
  /** The team's marks (PUT /api/chat/session/{id}). */
  isPinned?: boolean;
  isStarred?: boolean;
  lastMessage?: string | null;
  timestamp?: string;
  createdAt?: string;
  updatedAt?: string;
  messages?: readonly ChatMessage[];
  /** Local: a customer message arrived while this session was not open. */
  hasNewMessage?: boolean;
}

/** A queue entry (spec 2 §3 "Support request"). */
export interface SupportRequest {
  sessionId: string;
  session: ChatSession;
  customerMessage: string;
  customerInfo: { name?: string | null; email?: string | null };
  timestamp: string;
}

export interface SupportStats {
  waiting: number;
  activeChats: number;
  resolvedToday: number;
  totalResolved: number;
  averageResponseSeconds: number | null;
  answeredHandoffs: number;
  satisfaction: number | null;
  ratedSessions: number;
}

interface SessionList {
  sessions: ChatSession[];
  total: number;
}

const LIMIT = 200;

export const supportApi = {
  inbox: (botId: string) => api<SessionList>(`/sessions?botId=${encodeURIComponent(botId)}&limit=${LIMIT}`),
  queue: (botId: string) => api<SessionList>(`/chat/bot/${botId}/support-sessions?limit=${LIMIT}`),
  mine: (botId: string) => api<SessionList>(`/chat/bot/${botId}/agent-sessions?limit=${LIMIT}`),
  open: (botId: string) => api<SessionList>(`/chat/bot/${botId}/all-sessions?limit=${LIMIT}`),
  /** "Resolved today" counts from the agent's own midnight. */
  stats: (botId: string) => api<SupportStats>(`/chat/bot/${botId}/support-stats?tz=${encodeURIComponent(viewerZone())}`),
  session: (id: string) => api<{ session: ChatSession }>(`/chat/get-chat-session/${id}`),
  remove: (id: string) => api<{ ok: boolean }>(`/chat/sessions/${id}`, { method: 'DELETE' }),
  resolve: (id: string, rating: number, feedback: string) =>
    api<{ session: ChatSession }>(`/chat/session/${id}/resolve`, { method: 'PUT', body: { rating, feedback } }),
  setPriority: (id: string, priority: Priority) =>
    api<{ session: ChatSession }>(`/chat/session/${id}/status`, { method: 'PUT', body: { priority } }),
  mark: (id: string, marks: { pinned?: boolean; starred?: boolean }) =>
    api<{ session: ChatSession }>(`/chat/session/${id}`, { method: 'PUT', body: { ...marks } }),
  assign: (id: string) => api<{ session: ChatSession }>(`/chat/session/${id}/assign-agent`, { method: 'POST', body: {} }),
  editMessage: (sessionId: string, messageId: string, content: string) =>
    api<{ message: ChatMessage }>(`/chat/session/${sessionId}/messages/${messageId}`, { method: 'PUT', body: { content } }),
};
