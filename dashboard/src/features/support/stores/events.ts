// The live events of spec 2 §7 applied to the support state, one function per event. Each takes
// the state and the event's payload and changes nothing else (no I/O, no toasts), so tests feed
// events in and check the state; the store calls them on the valtio proxy.
import type { ChatMessage, ChatSession, SupportRequest, SupportStats } from '../api/support';

export interface SupportState {
  botId: string | null;
  /** The signed-in user's id: tells "taken by me" from "taken by another agent". */
  me: string | null;
  /** The inbox's list (/botchat): every session of the bot. */
  inbox: ChatSession[];
  /** Waiting support requests (needs a human, no agent yet), newest first. */
  queue: SupportRequest[];
  /** Every open session of the bot (all-sessions). */
  open: ChatSession[];
  /** Sessions assigned to me, or joined by me with Join Chat. */
  mine: ChatSession[];
  /** Sessions joined in this tab (Join Chat or a take): they leave the all-sessions list. */
  joined: string[];
  /** Sessions taken in this tab (the inbox's 'Live Session' badge). */
  live: string[];
  selectedId: string | null;
  /**
   * The dashboard's open chat after another agent resolved it: it has left every list, but stays
   * on screen, read-only, with its "Session resolved by" note, until the agent closes it.
   */
  closed: ChatSession | null;
  /** The selected session's messages, by seq, each `_id` once. */
  messages: ChatMessage[];
  /** Customer typing, by session id. */
  typing: Record<string, boolean>;
  /** The server's figures (support-stats), adjusted live between refreshes. */
  stats: SupportStats | null;
  /** Sessions whose resolve is already counted (the resolver hears its own event too). */
  counted: string[];
  loading: boolean;
  /** True once join-as-agent for `botId` was acknowledged on the current connection. */
  online: boolean;
}

export function initialSupportState(): SupportState {
  return {
    botId: null,
    me: null,
    inbox: [],
    queue: [],
    open: [],
    mine: [],
    joined: [],
    live: [],
    selectedId: null,
    closed: null,
    messages: [],
    typing: {},
    stats: null,
    counted: [],
    loading: false,
    online: false,
  };
}

// ---- helpers ------------------------------------------------------------------------------

const byId = (id: string) => (s: { _id: string }) => s._id === id;

/** Replaces the session with the same id (keeping local flags) or, with `add`, prepends it. */
export function upsert(list: ChatSession[], session: ChatSession, add = true): void {
  const i = list.findIndex(byId(session._id));
  if (i >= 0) list[i] = { ...list[i], ...session, hasNewMessage: session.hasNewMessage ?? list[i].hasNewMessage };
  else if (add) list.unshift(session);
}

function remove<T>(list: T[], pred: (x: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i])) list.splice(i, 1);
}

function patch(s: SupportState, sessionId: string, change: Partial<ChatSession>): void {
  for (const list of [s.inbox, s.open, s.mine]) {
    const i = list.findIndex(byId(sessionId));
    if (i >= 0) list[i] = { ...list[i], ...change };
  }
  for (const r of s.queue) if (r.sessionId === sessionId) r.session = { ...r.session, ...change };
}

function findSession(s: SupportState, sessionId: string): ChatSession | undefined {
  return (
    s.inbox.find(byId(sessionId)) ??
    s.open.find(byId(sessionId)) ??
    s.mine.find(byId(sessionId)) ??
    s.queue.find((r) => r.sessionId === sessionId)?.session
  );
}

/** The inbox's order: pinned sessions first, the rest as they were (a stable sort). */
export function pinnedFirst<S extends Pick<ChatSession, 'isPinned'>>(list: readonly S[]): S[] {
  return [...list].sort((a, b) => Number(!!b.isPinned) - Number(!!a.isPinned));
}

export function isWaiting(session: ChatSession): boolean {
  return !!session.needsHumanSupport && !session.assignedAgent && session.status !== 'resolved';
}

function order(m: ChatMessage): [number, number] {
  return [m.seq ?? Number.MAX_SAFE_INTEGER, Date.parse(m.timestamp) || 0];
}

/**
 * The history merged by `_id`: what is known stays once, a newer copy (an edit, the final text of
 * a streamed reply) replaces it, and what was missed is filled in, all in the server's order.
 */
export function mergeMessages(known: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  const all = new Map<string, ChatMessage>();
  for (const m of known) all.set(m._id, m);
  for (const m of incoming) all.set(m._id, { ...m, streaming: m.streaming ?? false });
  return [...all.values()].sort((a, b) => {
    const [sa, ta] = order(a);
    const [sb, tb] = order(b);
    return sa - sb || ta - tb;
  });
}

/** The highest seq known for the open session: a rejoin asks only for what came after. */
export function lastSeq(messages: readonly ChatMessage[]): number {
  return messages.reduce((max, m) => (m.seq && !m.streaming && m.seq > max ? m.seq : max), 0);
}

export function requestOf(session: ChatSession, prev?: SupportRequest): SupportRequest {
  return {
    sessionId: session._id,
    session,
    customerMessage: prev?.customerMessage ?? '',
    customerInfo: { name: session.customerName ?? prev?.customerInfo.name, email: session.customerEmail ?? prev?.customerInfo.email },
    timestamp: session.humanSupportRequestedAt ?? prev?.timestamp ?? session.updatedAt ?? new Date().toISOString(),
  };
}

function bumpStats(s: SupportState, change: Partial<Record<'waiting' | 'activeChats' | 'resolvedToday' | 'totalResolved', number>>) {
  if (!s.stats) return;
  for (const [k, d] of Object.entries(change) as [keyof typeof change, number][]) {
    s.stats[k] = Math.max(0, (s.stats[k] ?? 0) + d);
  }
}

// ---- events -------------------------------------------------------------------------------

export interface SupportRequestEvent {
  sessionId?: string;
  session: ChatSession;
  customerMessage?: string;
  customerInfo?: { name?: string | null; email?: string | null };
  timestamp?: string;
}

/** `support-request`: an urgent queue entry; returns true when it is new (worth an alert). */
export function applySupportRequest(s: SupportState, e: SupportRequestEvent): boolean {
  const sessionId = e.sessionId ?? e.session._id;
  const session = { ...e.session, _id: sessionId, needsHumanSupport: true };
  const entry: SupportRequest = {
    sessionId,
    session,
    customerMessage: e.customerMessage ?? '',
    customerInfo: e.customerInfo ?? { name: session.customerName, email: session.customerEmail },
    timestamp: e.timestamp ?? new Date().toISOString(),
  };
  const isNew = !s.queue.some((r) => r.sessionId === sessionId);
  remove(s.queue, (r) => r.sessionId === sessionId);
  s.queue.unshift(entry);
  remove(s.counted, (id) => id === sessionId); // a resolved conversation can ask again
  upsert(s.inbox, session);
  upsert(s.open, session);
  if (isNew) bumpStats(s, { waiting: 1 });
  return isNew;
}

/** `session-taken`: gone from everyone's queue at once; mine when I took it. */
export function applySessionTaken(s: SupportState, e: { sessionId: string; agentId: string; agentName?: string }): void {
  const wasWaiting = s.queue.some((r) => r.sessionId === e.sessionId);
  const taken = findSession(s, e.sessionId);
  remove(s.queue, (r) => r.sessionId === e.sessionId);
  patch(s, e.sessionId, { assignedAgent: { _id: e.agentId, id: e.agentId, name: e.agentName ?? null }, status: 'active' });
  if (e.agentId === s.me && taken) upsert(s.mine, { ...taken, assignedAgent: { _id: e.agentId, name: e.agentName ?? null } });
  if (wasWaiting) bumpStats(s, { waiting: -1, activeChats: 1 });
}

/** `session-assigned`: this session is now mine (a take, or a transfer to me). */
export function applySessionAssigned(s: SupportState, e: { sessionId: string; session: ChatSession }): void {
  const session = { ...e.session, _id: e.sessionId };
  remove(s.queue, (r) => r.sessionId === e.sessionId);
  upsert(s.mine, session);
  upsert(s.inbox, session, false);
  upsert(s.open, session);
  if (!s.joined.includes(e.sessionId)) s.joined.push(e.sessionId);
}

/** `new-message` and `customer-message`: the open chat grows; other sessions get a marker. */
export function applyNewMessage(s: SupportState, e: { sessionId: string; message: ChatMessage }): void {
  const m = e.message;
  if (s.selectedId === e.sessionId) s.messages = mergeMessages(s.messages, [m]);
  const fromCustomer = m.role === 'user' || m.role === 'customer';
  for (const list of [s.inbox, s.open, s.mine]) {
    const i = list.findIndex(byId(e.sessionId));
    if (i < 0) continue;
    const cur = list[i];
    list[i] = {
      ...cur,
      lastMessage: m.content,
      updatedAt: m.timestamp ?? cur.updatedAt,
      hasNewMessage: cur.hasNewMessage || (fromCustomer && s.selectedId !== e.sessionId),
    };
  }
  for (const r of s.queue) if (r.sessionId === e.sessionId && fromCustomer) r.customerMessage = m.content;
  if (fromCustomer) s.typing[e.sessionId] = false;
}

/** `message-delta`: a piece of a bot reply still being written (its `new-message` follows). */
export function applyMessageDelta(s: SupportState, e: { sessionId: string; messageId: string; delta: string }): void {
  if (s.selectedId !== e.sessionId) return;
  const i = s.messages.findIndex(byId(e.messageId));
  if (i >= 0) s.messages[i] = { ...s.messages[i], content: s.messages[i].content + e.delta };
  else s.messages.push({ _id: e.messageId, role: 'bot', content: e.delta, timestamp: new Date().toISOString(), streaming: true });
}

/** `message-updated`: an edited message replaces its old text. */
export function applyMessageUpdated(s: SupportState, e: { sessionId: string; message: ChatMessage }): void {
  if (s.selectedId !== e.sessionId) return;
  const i = s.messages.findIndex(byId(e.message._id));
  if (i >= 0) s.messages[i] = { ...s.messages[i], ...e.message };
}

export function applyCustomerTyping(s: SupportState, e: { sessionId: string; isTyping: boolean }): void {
  s.typing[e.sessionId] = !!e.isTyping;
}

/**
 * `session-resolved` (or my own resolve): out of every list of open work, resolved in the inbox,
 * counted once in resolved today / total, one fewer active chat (never below 0).
 */
export function applySessionResolved(s: SupportState, e: { sessionId: string; resolvedBy?: string; timestamp?: string }): void {
  const wasWaiting = s.queue.some((r) => r.sessionId === e.sessionId);
  const wasActive = !wasWaiting && (s.open.some(byId(e.sessionId)) || s.mine.some(byId(e.sessionId)));
  const resolvedAt = e.timestamp || new Date().toISOString();
  const shown = s.selectedId === e.sessionId ? (s.mine.find(byId(e.sessionId)) ?? s.open.find(byId(e.sessionId))) : undefined;
  if (shown) s.closed = { ...shown, status: 'resolved', resolvedAt, resolvedBy: e.resolvedBy ?? shown.resolvedBy, needsHumanSupport: false };
  remove(s.queue, (r) => r.sessionId === e.sessionId);
  remove(s.open, byId(e.sessionId));
  remove(s.mine, byId(e.sessionId));
  remove(s.joined, (id) => id === e.sessionId);
  remove(s.live, (id) => id === e.sessionId);
  const i = s.inbox.findIndex(byId(e.sessionId));
  if (i >= 0 && s.inbox[i].status !== 'resolved')
    s.inbox[i] = { ...s.inbox[i], status: 'resolved', resolvedAt, resolvedBy: e.resolvedBy ?? s.inbox[i].resolvedBy, needsHumanSupport: false };
  s.typing[e.sessionId] = false;
  // Only this bot's sessions count (a socket may still hear a bot it watched before).
  const known = wasWaiting || wasActive || i >= 0;
  if (!known || s.counted.includes(e.sessionId)) return;
  s.counted.push(e.sessionId);
  bumpStats(s, { resolvedToday: 1, totalResolved: 1, ...(wasWaiting ? { waiting: -1 } : {}), ...(wasActive ? { activeChats: -1 } : {}) });
}

/** `session-updated`: new status, priority or agent; every list follows. */
export function applySessionUpdated(s: SupportState, e: { sessionId: string; session: ChatSession }): void {
  const session = { ...e.session, _id: e.sessionId };
  upsert(s.inbox, session, false);
  if (session.status === 'resolved') {
    remove(s.open, byId(e.sessionId));
    remove(s.mine, byId(e.sessionId));
  } else {
    upsert(s.open, session, false);
    const mineNow = session.assignedAgent?._id === s.me || s.joined.includes(e.sessionId);
    if (mineNow) upsert(s.mine, session);
    else remove(s.mine, byId(e.sessionId));
  }
  const i = s.queue.findIndex((r) => r.sessionId === e.sessionId);
  if (!isWaiting(session)) {
    if (i >= 0) s.queue.splice(i, 1);
  } else if (i >= 0) {
    s.queue[i] = { ...s.queue[i], session };
  } else {
    s.queue.unshift(requestOf(session));
  }
}

/** `session-deleted`: gone everywhere; the open chat closes. */
export function applySessionDeleted(s: SupportState, e: { sessionId: string }): void {
  for (const list of [s.inbox, s.open, s.mine]) remove(list, byId(e.sessionId));
  remove(s.queue, (r) => r.sessionId === e.sessionId);
  remove(s.joined, (id) => id === e.sessionId);
  remove(s.live, (id) => id === e.sessionId);
  delete s.typing[e.sessionId];
  if (s.selectedId === e.sessionId) {
    s.selectedId = null;
    s.messages = [];
  }
  if (s.closed?._id === e.sessionId) s.closed = null;
}

/** `all-sessions-update`: the bot's open sessions, whole. */
export function applyAllSessions(s: SupportState, e: { sessions: ChatSession[] }): void {
  s.open = e.sessions;
}

/** `active-support-sessions` (and the join-as-agent ack): the waiting queue, whole. */
export function applyActiveSupportSessions(s: SupportState, e: { sessions: ChatSession[] }): void {
  const prev = new Map(s.queue.map((r) => [r.sessionId, r]));
  s.queue = e.sessions.filter(isWaiting).map((session) => requestOf(session, prev.get(session._id)));
}

/** The join-session ack: the session and its messages (after `afterSeq`), merged by `_id`. */
export function applyJoined(s: SupportState, e: { sessionId: string; session?: ChatSession; messages?: readonly ChatMessage[] }): void {
  if (e.session) {
    const session = { ...e.session, _id: e.sessionId };
    upsert(s.inbox, session, false);
    upsert(s.open, session, false);
    upsert(s.mine, session, false);
  }
  if (s.selectedId === e.sessionId && e.messages) s.messages = mergeMessages(s.messages, e.messages);
}

/** Opening a session clears its new-message marker. */
export function applySelect(s: SupportState, sessionId: string | null): void {
  if (s.selectedId !== sessionId) s.messages = [];
  if (s.closed?._id !== sessionId) s.closed = null;
  s.selectedId = sessionId;
  if (sessionId) patch(s, sessionId, { hasNewMessage: false });
}

/** What 'All Active Sessions' lists: open, not mine, not joined here. */
export function joinable<S extends Pick<ChatSession, '_id' | 'status' | 'assignedAgent'>>(s: {
  open: readonly S[];
  joined: readonly string[];
  me: string | null;
}): S[] {
  return s.open.filter((x) => x.status !== 'resolved' && !s.joined.includes(x._id) && x.assignedAgent?._id !== s.me);
}
