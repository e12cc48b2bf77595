// The agent workspace's one store, shared by /botchat and /agent-dashboard: fed by REST (lists,
// a session's history, figures) and by the live events, which go through the pure functions of
// `events.ts`. Actions are the spec's: take, join, send, resolve, priority, edit, delete; and the
// team's pin and star marks.
import { proxy } from 'valtio';
import { ApiError, errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { BUSY } from '@/lib/busy';
import { emitAck, emitLive, live, liveSocket, onLive } from '@/features/live/socket';
import { supportApi, type ChatMessage, type ChatSession, type Priority, type SupportStats } from '../api/support';
import { alertSupportRequest, forgetAlert } from './alerts';
import * as ev from './events';
import { canSend, clampRating, resolveFormError, editError, type ResolveForm } from './rules';

export type SupportView = 'inbox' | 'dashboard';

export const support = proxy<ev.SupportState & { view: SupportView }>({ ...ev.initialSupportState(), view: 'inbox' });

export function resetSupport(): void {
  Object.assign(support, ev.initialSupportState());
  leftQueueAt.clear();
}
onSignOut(resetSupport);

const fail = (err: unknown, fallback: string) => errorMessage(err, err instanceof Error && !(err instanceof ApiError) && err.message ? err.message : fallback);

// ---- loading ------------------------------------------------------------------------------

let statsTimer: ReturnType<typeof setTimeout> | null = null;

export async function loadStats(): Promise<void> {
  const botId = support.botId;
  if (!botId) return;
  try {
    const stats: SupportStats = await supportApi.stats(botId);
    if (support.botId === botId) support.stats = stats;
  } catch {
    // Figures stay as they were (or '—'): the lists are what the agent works from.
  }
}

/** Refreshes the figures shortly after a burst of changes. */
export function refreshStatsSoon(ms = 400): void {
  if (statsTimer) clearTimeout(statsTimer);
  statsTimer = setTimeout(() => {
    statsTimer = null;
    void loadStats();
  }, ms);
}

/**
 * When each session last left the queue by a live event (taken, resolved, deleted). A REST read
 * of the queue that started before that is stale for it: applied as is, it would put the session
 * back, with a fresh "new request" toast.
 */
const leftQueueAt = new Map<string, number>();

function noteLeftQueue(sessionId: string): void {
  leftQueueAt.set(sessionId, Date.now());
}

/** The queue read over REST, less what live events took out of it after the read began. */
function queueSince(sessions: ChatSession[], readStartedAt: number): ChatSession[] {
  return sessions.filter((s) => (leftQueueAt.get(s._id) ?? -Infinity) < readStartedAt);
}

export async function loadInbox({ quiet = false } = {}): Promise<void> {
  const botId = support.botId;
  if (!botId) return;
  if (!quiet) support.loading = true;
  try {
    const started = Date.now();
    const [{ sessions }, queue] = await Promise.all([supportApi.inbox(botId), supportApi.queue(botId)]);
    if (support.botId !== botId) return;
    const flags = new Map(support.inbox.map((s) => [s._id, s.hasNewMessage]));
    support.inbox = sessions.map((s) => ({ ...s, hasNewMessage: flags.get(s._id) }));
    applyQueue(queueSince(queue.sessions, started));
    if (!support.selectedId && support.inbox.length) void selectSession(support.inbox[0]._id);
  } catch (err) {
    if (!quiet) notify.error('Unable to load conversations', errorMessage(err, 'Please try again.'));
  } finally {
    support.loading = false;
  }
}

/**
 * Conversations that stay with the bot raise no agent event, so the lists are re-read now and
 * then: the inbox over REST, the open sessions with get-all-sessions (answered by
 * all-sessions-update).
 */
export const LIST_REFRESH_MS = 30000;

function refreshLists(): void {
  if (!support.botId || !live.connected) return;
  if (support.view === 'inbox') void loadInbox({ quiet: true });
  else emitLive('get-all-sessions', { botId: support.botId });
}

export async function loadDashboard(): Promise<void> {
  const botId = support.botId;
  if (!botId) return;
  support.loading = true;
  try {
    const started = Date.now();
    const [queue, mine, open] = await Promise.all([supportApi.queue(botId), supportApi.mine(botId), supportApi.open(botId)]);
    if (support.botId !== botId) return;
    applyQueue(queueSince(queue.sessions, started));
    const joinedHere = support.mine.filter((s) => support.joined.includes(s._id) && !mine.sessions.some((m) => m._id === s._id));
    const flags = new Map(support.mine.map((s) => [s._id, s.hasNewMessage]));
    support.mine = [...mine.sessions, ...joinedHere].map((s) => ({ ...s, hasNewMessage: flags.get(s._id) }));
    support.open = open.sessions;
  } catch {
    // Spec 2 §8: a failed support-session fetch is not a user message; the live events still arrive.
  } finally {
    support.loading = false;
  }
  void loadStats();
}

// ---- live ---------------------------------------------------------------------------------

function sessionOf(id: string): ChatSession | undefined {
  return [...support.inbox, ...support.open, ...support.mine].find((s) => s._id === id) ?? support.queue.find((r) => r.sessionId === id)?.session;
}

/** Joins the open session over the socket; with history, asks only for what came after it. */
async function joinOpenSession(sessionId: string): Promise<void> {
  const afterSeq = ev.lastSeq(support.messages);
  const ack = await emitAck<{ success: boolean; session: ChatSession; messages: ChatMessage[] }>('join-session', { sessionId, afterSeq });
  ev.applyJoined(support, { sessionId, session: ack.session, messages: ack.messages });
}

/** Waits before joining again after a join lost to a timeout or a busy server. */
const JOIN_RETRY_MS = [1000, 2000, 5000, 10000, 30000];
let joinRetry: ReturnType<typeof setTimeout> | null = null;

function stopJoinRetry(): void {
  if (joinRetry) clearTimeout(joinRetry);
  joinRetry = null;
}

/** A join that may work later: no answer in time, or the server's queues were full. */
const retryable = (err: unknown) => err instanceof Error && (err.message === BUSY || /timed out/i.test(err.message));

async function joinAsAgent(botId: string, attempt = 0): Promise<void> {
  stopJoinRetry();
  try {
    const ack = await emitAck<{ success: boolean; sessions: ChatSession[] }>('join-as-agent', { botId });
    if (support.botId !== botId) return;
    applyQueue(ack.sessions ?? []);
    support.online = true;
  } catch (err) {
    // Spec 2 §8: live channel errors are only logged; REST lists still show the work. A join
    // lost to a timeout or a busy server is tried again (joining twice changes nothing), or
    // the tab would stay "Connecting..." and hear no live events until the next reconnect. A
    // refusal (no role on the bot) is final.
    if (!retryable(err) || support.botId !== botId) return;
    const wait = JOIN_RETRY_MS[Math.min(attempt, JOIN_RETRY_MS.length - 1)];
    joinRetry = setTimeout(() => {
      joinRetry = null;
      if (support.botId === botId && live.connected) void joinAsAgent(botId, attempt + 1);
    }, wait);
  }
}

let connectedOnce = false;
/** The queue was read once: from then on, entries that appear in a whole-queue update are news. */
let queueKnown = false;

/** A whole queue (REST, the join-as-agent ack, active-support-sessions); tells of what is new. */
function applyQueue(sessions: ChatSession[]): void {
  const before = new Set(support.queue.map((r) => r.sessionId));
  ev.applyActiveSupportSessions(support, { sessions });
  const fresh = support.queue.filter((r) => !before.has(r.sessionId));
  if (queueKnown && fresh.length) {
    if (support.view === 'dashboard') notify.info('Support Request', 'A new customer needs assistance');
    else notify.info('New support request from customer');
    for (const r of fresh) alertSupportRequest(r.sessionId, r.customerInfo.name, r.customerMessage);
    refreshStatsSoon();
  }
  queueKnown = true;
}

async function onConnect(): Promise<void> {
  const botId = support.botId;
  if (!botId) return;
  await joinAsAgent(botId);
  const reconnect = connectedOnce;
  connectedOnce = true;
  // Back after a drop: fill exactly what was missed in the open chat (merged by _id) and
  // re-read the lists, which may have changed meanwhile.
  const open = support.selectedId;
  if (open) await joinOpenSession(open).catch(() => undefined);
  for (const id of support.joined) if (id !== open) void emitAck('join-session', { sessionId: id, afterSeq: 1e15 }).catch(() => undefined);
  if (reconnect) {
    if (support.view === 'inbox') void loadInbox();
    else void loadDashboard();
  }
}

/** Sessions of another bot (the socket keeps watching a bot it joined before a switch) are not ours. */
function ours(session?: Pick<ChatSession, 'botId'> | null): boolean {
  return !session?.botId || session.botId === support.botId;
}

function onSupportRequest(e: ev.SupportRequestEvent): void {
  if (!ours(e.session)) return;
  const sessionId = e.sessionId ?? e.session._id;
  // Asked again after a take or a resolve: in the queue again, also for REST reads.
  leftQueueAt.delete(sessionId);
  if (support.counted.includes(sessionId)) forgetAlert(sessionId);
  const isNew = ev.applySupportRequest(support, e);
  if (!isNew) return;
  if (support.view === 'dashboard') notify.info('New Support Request', 'A customer has requested human assistance');
  else notify.info('New support request from customer');
  alertSupportRequest(sessionId, e.customerInfo?.name, e.customerMessage ?? '');
  refreshStatsSoon();
}

let pendingLeave: { botId: string; timer: ReturnType<typeof setTimeout> } | null = null;

/** Subscribes the store to the tab's socket for `botId`; returns the unsubscribe. */
export function startSupport(botId: string, me: string | null, view: SupportView): () => void {
  if (pendingLeave?.botId === botId) {
    clearTimeout(pendingLeave.timer);
    pendingLeave = null;
  }
  if (support.botId !== botId || support.me !== me) {
    resetSupport();
    support.botId = botId;
    support.me = me;
  }
  support.view = view;
  connectedOnce = false;
  queueKnown = false;
  const socket = liveSocket();
  const offs = [
    onLive('connect', () => void onConnect()),
    onLive('disconnect', () => {
      support.online = false;
      // The next connect joins afresh. A "typing" heard before the drop may never be
      // followed by its stop: forget it rather than show it for good.
      stopJoinRetry();
      support.typing = {};
    }),
    onLive('support-request', onSupportRequest),
    onLive<{ sessionId: string; agentId: string; agentName?: string }>('session-taken', (e) => {
      noteLeftQueue(e.sessionId);
      ev.applySessionTaken(support, e);
      refreshStatsSoon();
    }),
    onLive<{ sessionId: string; session: ChatSession }>('session-assigned', (e) => {
      if (!ours(e.session)) return;
      ev.applySessionAssigned(support, e);
      if (support.view === 'dashboard') notify.success('Session Assigned', 'You are now handling this customer conversation');
      refreshStatsSoon();
    }),
    onLive('new-message', (e: { sessionId: string; message: ChatMessage }) => {
      ev.applyNewMessage(support, e);
      // An agent's answer can change the average response time.
      if (e.message.role === 'agent') refreshStatsSoon(2000);
    }),
    onLive('customer-message', (e: { sessionId: string; message: ChatMessage }) => ev.applyNewMessage(support, e)),
    onLive('message-delta', (e: { sessionId: string; messageId: string; delta: string }) => ev.applyMessageDelta(support, e)),
    onLive('message-updated', (e: { sessionId: string; message: ChatMessage }) => ev.applyMessageUpdated(support, e)),
    onLive('customer-typing', (e: { sessionId: string; isTyping: boolean }) => ev.applyCustomerTyping(support, e)),
    onLive<{ sessionId: string; resolvedBy?: string; timestamp?: string }>('session-resolved', (e) => {
      noteLeftQueue(e.sessionId);
      ev.applySessionResolved(support, e);
      refreshStatsSoon();
    }),
    onLive<{ sessionId: string; session: ChatSession }>('session-updated', (e) => {
      if (!ours(e.session)) return;
      ev.applySessionUpdated(support, e);
      refreshStatsSoon();
    }),
    onLive<{ sessionId: string }>('session-deleted', (e) => {
      noteLeftQueue(e.sessionId);
      ev.applySessionDeleted(support, e);
      refreshStatsSoon();
    }),
    onLive('all-sessions-update', (e: { sessions: ChatSession[] }) => ev.applyAllSessions(support, { sessions: e.sessions.filter(ours) })),
    onLive('active-support-sessions', (e: { sessions: ChatSession[] }) => {
      if (e.sessions.every(ours)) applyQueue(e.sessions);
    }),
  ];
  if (!socket) offs.length = 0;
  if (view === 'inbox') void loadInbox();
  else void loadDashboard();
  const timer = setInterval(refreshLists, LIST_REFRESH_MS);
  return () => {
    clearInterval(timer);
    stopJoinRetry();
    for (const off of offs) off();
    // Off the support screens (or on to another bot) this tab is no longer an agent of the bot:
    // the server stops counting it online there and stops sending it the bot's events. Deferred
    // a tick so that moving between /botchat and /agent-dashboard (unmount, then mount for the
    // same bot) does not leave and rejoin: the server runs a socket's events concurrently.
    const leave = setTimeout(() => {
      pendingLeave = null;
      if (live.connected) emitLive('leave-as-agent', { botId });
    }, 0);
    pendingLeave = { botId, timer: leave };
  };
}

// ---- actions ------------------------------------------------------------------------------

/** Opens a session: its history over the socket (then live), or over REST when offline. */
export async function selectSession(sessionId: string | null): Promise<void> {
  ev.applySelect(support, sessionId);
  if (!sessionId) return;
  try {
    if (live.connected) {
      await joinOpenSession(sessionId);
      return;
    }
  } catch {
    // Fall back to REST below.
  }
  try {
    const { session } = await supportApi.session(sessionId);
    if (support.selectedId !== sessionId) return;
    ev.applyJoined(support, { sessionId, session: { ...session, messages: undefined }, messages: session.messages ?? [] });
  } catch (err) {
    notify.error('Unable to open the conversation', errorMessage(err, 'Please try again.'));
  }
}

/** Take Session: one agent wins; the queue entry goes for everyone (session-taken). */
export async function takeSession(sessionId: string): Promise<boolean> {
  try {
    let session: ChatSession;
    if (live.connected) {
      const ack = await emitAck<{ success: boolean; session: ChatSession }>('take-session', { sessionId });
      session = ack.session;
    } else {
      session = (await supportApi.assign(sessionId)).session;
      // Over the socket the server's session-assigned says this; over REST nothing else will.
      if (support.view === 'dashboard') notify.success('Session Assigned', 'You are now handling this customer conversation');
    }
    noteLeftQueue(sessionId);
    ev.applySessionAssigned(support, { sessionId, session });
    if (!support.live.includes(sessionId)) support.live.push(sessionId);
    if (support.view === 'inbox') notify.success('Session assigned successfully');
    await selectSession(sessionId);
    if (support.view === 'inbox') void loadInbox();
    refreshStatsSoon();
    return true;
  } catch (err) {
    notify.error('Failed to take session', fail(err, 'Please try again.'));
    return false;
  }
}

/** Join Chat: any open session of the bot; it leaves the all-sessions list. */
export async function joinSession(sessionId: string): Promise<boolean> {
  ev.applySelect(support, sessionId);
  try {
    await joinOpenSession(sessionId);
    if (!support.joined.includes(sessionId)) support.joined.push(sessionId);
    const session = sessionOf(sessionId);
    if (session) ev.upsert(support.mine, session);
    notify.success('Session Joined', 'You are now connected to the customer');
    return true;
  } catch {
    notify.error('Join Failed', 'Unable to join the session. Please try again.');
    return false;
  }
}

/**
 * The last reply whose send got no good answer. Sending the same words to the same conversation
 * again reuses its id, so if the first did arrive (only the ack was lost) the server saves it
 * once and hands that message back.
 */
let unsent: { sessionId: string; text: string; clientId: string } | null = null;

function newClientId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sendMessage(text: string): Promise<boolean> {
  const sessionId = support.selectedId;
  if (!sessionId || !canSend(text)) return false;
  const message = text.trim();
  const clientId = unsent && unsent.sessionId === sessionId && unsent.text === message ? unsent.clientId : newClientId();
  try {
    const ack = await emitAck<{ success: boolean; message: ChatMessage }>('send-message', { sessionId, message, clientId });
    unsent = null;
    if (ack.message) ev.applyNewMessage(support, { sessionId, message: ack.message });
    return true;
  } catch (err) {
    unsent = { sessionId, text: message, clientId };
    notify.error('Message not sent', fail(err, 'Please try again.'));
    return false;
  }
}

let typingSent: { sessionId: string; on: boolean } | null = null;

/** Tells the customer the agent is typing; sends only changes. */
export function setTyping(on: boolean): void {
  const sessionId = support.selectedId;
  if (!sessionId) return;
  if (typingSent && typingSent.sessionId === sessionId && typingSent.on === on) return;
  if (!on && !typingSent?.on) return;
  typingSent = { sessionId, on };
  emitLive('typing', { sessionId, isTyping: on, isAgent: true });
}

/** Resolve with a rating (1-5) and optional notes; the inbox uses REST, the dashboard the socket. */
export async function resolveSession(sessionId: string, form: ResolveForm): Promise<boolean> {
  const problem = resolveFormError(form);
  if (problem) {
    notify.error('Unable to resolve', problem);
    return false;
  }
  const rating = clampRating(form.rating);
  const notes = form.notes.trim();
  try {
    let session: ChatSession;
    if (support.view === 'dashboard' && live.connected) {
      const ack = await emitAck<{ success: boolean; session: ChatSession }>('resolve-session', { sessionId, rating, notes });
      session = ack.session;
    } else {
      session = (await supportApi.resolve(sessionId, rating, notes)).session;
    }
    ev.applySessionResolved(support, { sessionId, resolvedBy: session?.resolvedBy ?? undefined, timestamp: session?.resolvedAt ?? undefined });
    if (session) ev.upsert(support.inbox, { ...session, _id: sessionId }, false);
    if (support.view === 'dashboard') notify.success('Session Resolved', 'The customer conversation has been successfully closed');
    else {
      notify.success('Session Resolved', 'The customer conversation has been successfully closed');
      void loadInbox();
    }
    refreshStatsSoon();
    return true;
  } catch (err) {
    notify.error('Unable to resolve', fail(err, 'Please try again.'));
    return false;
  }
}

export async function setPriority(sessionId: string, priority: Priority): Promise<void> {
  const current = sessionOf(sessionId);
  const before = current?.priority;
  if (current) ev.applySessionUpdated(support, { sessionId, session: { ...current, priority } });
  try {
    const { session } = await supportApi.setPriority(sessionId, priority);
    ev.applySessionUpdated(support, { sessionId, session });
  } catch (err) {
    const cur = sessionOf(sessionId);
    if (cur) ev.applySessionUpdated(support, { sessionId, session: { ...cur, priority: before ?? null } });
    notify.error('Unable to change priority', errorMessage(err, 'Please try again.'));
  }
}

/** Pins or stars a session (or takes the mark off): shown at once, put back if refused. */
export async function markSession(sessionId: string, mark: 'pinned' | 'starred'): Promise<boolean> {
  const current = sessionOf(sessionId);
  if (!current) return false;
  const field = mark === 'pinned' ? 'isPinned' : 'isStarred';
  const before = !!current[field];
  ev.applySessionUpdated(support, { sessionId, session: { ...current, [field]: !before } });
  try {
    const { session } = await supportApi.mark(sessionId, { [mark]: !before });
    ev.applySessionUpdated(support, { sessionId, session });
    return true;
  } catch (err) {
    const cur = sessionOf(sessionId);
    if (cur) ev.applySessionUpdated(support, { sessionId, session: { ...cur, [field]: before } });
    notify.error(mark === 'pinned' ? 'Pin not saved' : 'Star not saved', errorMessage(err, 'Please try again.'));
    return false;
  }
}

/** Inline edit of a bot message; empty text is refused before any call. */
export async function editMessage(messageId: string, content: string): Promise<string | null> {
  const sessionId = support.selectedId;
  if (!sessionId) return 'Select a conversation';
  const problem = editError(content);
  if (problem) return problem;
  try {
    const { message } = await supportApi.editMessage(sessionId, messageId, content.trim());
    ev.applyMessageUpdated(support, { sessionId, message });
    return null;
  } catch (err) {
    return errorMessage(err, 'Unable to save the message');
  }
}

/** Spec 2 §8: the body of the 'Delete Failed' toast. */
export const DELETE_FAILED = 'Unable to delete the session. Please try again.';

export async function deleteSession(sessionId: string): Promise<boolean> {
  const id = notify.loading('Deleting Session', 'Please wait while we delete the conversation...');
  try {
    await supportApi.remove(sessionId);
    const wasOpen = support.selectedId === sessionId;
    ev.applySessionDeleted(support, { sessionId });
    notify.done(id, 'success', 'Session Deleted', 'The conversation has been permanently removed');
    if (wasOpen && support.inbox.length) void selectSession(support.inbox[0]._id);
    return true;
  } catch (err) {
    // The spec's words (spec 2 §8), but for a role that may not delete: the spec has none for
    // that, and "try again" would send the person round in circles, so the server says why.
    const why = err instanceof ApiError && err.status === 403 && err.message ? err.message : DELETE_FAILED;
    notify.done(id, 'error', 'Delete Failed', why);
    return false;
  }
}
