// The visitor's conversation: what is on screen and how it changes. The first message starts a
// conversation over HTTP (POST /api/chat, which also issues the visitor token); from then on the
// live channel carries everything both ways: messages (acknowledged once saved), the
// assistant's streamed reply (message-delta, then new-message), the handoff states, the agent's
// messages and typing. The conversation survives a reload when the bot keeps history.

import type { ChatTheme } from './theme';
import { BUSY } from './busy';
import { ERROR_TEXT, type ContactDetails } from './rules';
import { replyWait } from '../shared/look';

export type Role = 'user' | 'bot' | 'agent' | 'system';

export interface Citation {
  title: string;
  url?: string | null;
  page?: number | null;
}

export interface ChatMessage {
  id: string;
  role: Role;
  content: string;
  senderName?: string | null;
  isError?: boolean;
  sources?: Citation[];
  /** "Did you mean" quick replies the bot offered with this reply (it was not sure). */
  suggestions?: string[];
  /** A reply still streaming in. */
  streaming?: boolean;
  /** Shown before the server saved it. */
  local?: boolean;
  /**
   * The visitor's message that may not have reached the server (no answer in time, or busy past
   * the retries): kept with its text and sent again on Retry. If it did arrive, the server's copy
   * (a rejoin's history, or its own echo) replaces it.
   */
  failed?: boolean;
  /** The visitor's message's own id, sent with it: a Retry with it is never saved twice. */
  clientId?: string;
}

/**
 * A fresh id for a visitor's message. `crypto.getRandomValues` works on plain-http pages too,
 * where `crypto.randomUUID` does not exist.
 */
export function newClientId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export type Mode = 'bot' | 'waiting' | 'agent';

export interface ChatState {
  messages: ChatMessage[];
  pending: boolean;
  mode: Mode;
  agentName: string | null;
  agentTyping: boolean;
  sessionId: string | null;
  leadGiven: boolean;
  leadDismissed: boolean;
  contactFormOpen: boolean;
  /** The server offered a person after a reply that could not help: the button shows at once. */
  handoffOffered: boolean;
}

type Ack = Record<string, unknown> & { success?: boolean; error?: string };
type Handler = (payload: Record<string, unknown>) => void;

/** The live channel, as the controller needs it (socket.io-client in the page, a fake in tests). */
export interface Live {
  on(event: string, handler: Handler): void;
  emit(event: string, payload: unknown): Promise<Ack>;
  close(): void;
}

/** How the controller reaches the server. */
export interface Transport {
  startConversation(body: Record<string, unknown>): Promise<{ ok: boolean; status: number; body: Record<string, unknown> }>;
  /**
   * `onRefused`: the server turned the connection away for good (the visitor token no longer
   * opens the conversation, e.g. expired); socket.io does not try again after that.
   */
  connect(visitorToken: string, onReconnect: () => void, onRefused?: () => void): Live;
}

interface Saved {
  sessionId: string;
  visitorToken: string;
}

const storageKey = (botId: string) => `parley:chat:${botId}`;

function loadSaved(botId: string): Saved | null {
  try {
    const raw = localStorage.getItem(storageKey(botId));
    const v = raw ? (JSON.parse(raw) as Partial<Saved>) : null;
    return v?.sessionId && v.visitorToken ? { sessionId: v.sessionId, visitorToken: v.visitorToken } : null;
  } catch {
    return null;
  }
}

function toMessage(raw: unknown): ChatMessage | null {
  if (!raw || typeof raw !== 'object') return null;
  const m = raw as Record<string, unknown>;
  const id = typeof m._id === 'string' ? m._id : typeof m.id === 'string' ? m.id : null;
  if (!id) return null;
  const role = (['user', 'bot', 'agent', 'system'] as const).find((r) => r === m.role) ?? 'bot';
  const sources = Array.isArray(m.sources)
    ? (m.sources as Record<string, unknown>[])
        .filter((s) => s && typeof s.title === 'string')
        .map((s) => ({ title: String(s.title), url: typeof s.url === 'string' ? s.url : null, page: typeof s.page === 'number' ? s.page : null }))
    : [];
  const suggestions = Array.isArray(m.suggestions) ? m.suggestions.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];
  return {
    id,
    role,
    content: typeof m.content === 'string' ? m.content : '',
    senderName: typeof m.senderName === 'string' ? m.senderName : typeof m.agentName === 'string' ? m.agentName : null,
    isError: m.isError === true,
    sources,
    ...(suggestions.length ? { suggestions } : {}),
  };
}

let localIds = 0;

/** How long "Agent is typing…" shows without a word from the agent's side. */
export const AGENT_TYPING_MS = 10_000;
/** The same error within this long is the same refusal told twice (ack and `error` event). */
const SAME_ERROR_MS = 2_000;
/**
 * A join that got no answer or a busy server is tried again after this, doubling up to the
 * most: a connected socket that never joined would miss every agent reply.
 */
export const JOIN_RETRY_MS = 1_000;
export const JOIN_RETRY_MAX_MS = 30_000;

export class ChatController {
  state: ChatState = {
    messages: [],
    pending: false,
    mode: 'bot',
    agentName: null,
    agentTyping: false,
    sessionId: null,
    leadGiven: false,
    leadDismissed: false,
    contactFormOpen: false,
    handoffOffered: false,
  };
  private listeners = new Set<() => void>();
  private live: Live | null = null;
  private token: string | null = null;
  private lastSeq = 0;
  /** When the visitor last sent: the assistant's reply shows no sooner than typingDelay after. */
  private sentAt = 0;
  /** Reply updates held back until then, in arrival order. */
  private held: (() => void)[] = [];
  private heldTimer: ReturnType<typeof setTimeout> | null = null;
  private typingTimer: ReturnType<typeof setTimeout> | null = null;
  private joinTimer: ReturnType<typeof setTimeout> | null = null;
  /** What the composer last said of the visitor's typing. */
  private visitorTyping = false;
  private lastError: { text: string; at: number } | null = null;

  constructor(
    private botId: string,
    private theme: ChatTheme,
    private transport: Transport,
    private onIncoming: () => void = () => {},
  ) {}

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };
  getState = () => this.state;

  private set(patch: Partial<ChatState>) {
    this.state = { ...this.state, ...patch };
    this.listeners.forEach((fn) => fn());
  }

  /** Counted for the handoff and lead rules: what the visitor and the other side said. */
  messageCount(): number {
    return this.state.messages.filter((m) => m.role === 'user' || m.role === 'bot' || m.role === 'agent').length;
  }

  /** Restores a kept conversation (history on): reconnects and loads what was said. */
  async restore(): Promise<void> {
    if (!this.theme.enableHistory) return;
    const saved = loadSaved(this.botId);
    if (!saved) return;
    this.token = saved.visitorToken;
    this.set({ sessionId: saved.sessionId });
    const joined = await this.joinUntilDone();
    if (joined === 'refused') {
      // Expired or deleted: start afresh rather than fail.
      this.forget();
      this.set({ sessionId: null, messages: [] });
    }
    // Unreachable (a restart, a timeout) or busy: the conversation is kept, and the join is
    // tried again (and on every reconnect).
  }

  /**
   * Joins the conversation, and while the answer is `unreachable` tries again with backoff for as
   * long as this conversation is the page's. Returns the first attempt's outcome.
   */
  private async joinUntilDone(attempt = 0): Promise<'joined' | 'refused' | 'unreachable'> {
    const sessionId = this.state.sessionId;
    const outcome = await this.join();
    if (outcome === 'unreachable' && sessionId) this.retryJoinLater(sessionId, attempt);
    return outcome;
  }

  private remember() {
    if (!this.theme.enableHistory || !this.state.sessionId || !this.token) return;
    try {
      localStorage.setItem(storageKey(this.botId), JSON.stringify({ sessionId: this.state.sessionId, visitorToken: this.token }));
    } catch {
      // Storage full or blocked: the conversation still works, it just won't survive a reload.
    }
  }

  private forget() {
    this.stopJoinRetry();
    try {
      localStorage.removeItem(storageKey(this.botId));
    } catch {
      /* nothing kept */
    }
    this.live?.close();
    this.live = null;
    this.token = null;
  }

  /**
   * Connects the live channel and joins the conversation: `refused` when the server says no (the
   * conversation is gone or the token no longer opens it), `unreachable` when no answer came or
   * the server was busy.
   */
  private async join(): Promise<'joined' | 'refused' | 'unreachable'> {
    const sessionId = this.state.sessionId;
    if (!sessionId || !this.token) return 'refused';
    if (!this.live) {
      const token = this.token;
      this.live = this.transport.connect(
        token,
        () => void this.rejoin(),
        // A kept conversation whose token has expired: start afresh, as for a refused join.
        () => {
          if (this.token === token) this.dropConversation();
        },
      );
      this.listen(this.live);
    }
    try {
      const ack = await this.live.emit('join-session', { sessionId });
      if (ack.success !== true) return ack.error === BUSY ? 'unreachable' : 'refused';
      this.stopJoinRetry();
      this.absorbHistory(ack.messages, ack.session);
      return 'joined';
    } catch {
      return 'unreachable';
    }
  }

  /** After a reconnect: join again and take only what was missed. */
  private async rejoin() {
    const sessionId = this.state.sessionId;
    if (!sessionId || !this.live) return;
    try {
      const ack = await this.live.emit('join-session', { sessionId, afterSeq: this.lastSeq });
      if (ack.success === true) {
        this.stopJoinRetry();
        this.absorbHistory(ack.messages, ack.session);
      }
      // Refused (deleted while the socket was down, or the token no longer opens it): as for
      // `session-deleted`, the next message starts a new conversation.
      else if (ack.error !== BUSY && this.state.sessionId === sessionId) this.dropConversation();
      else this.retryJoinLater(sessionId);
    } catch {
      // No answer on a connected socket: no reconnect may come to try again.
      this.retryJoinLater(sessionId);
    }
  }

  private stopJoinRetry() {
    if (this.joinTimer) clearTimeout(this.joinTimer);
    this.joinTimer = null;
  }

  /** Joins again after a backoff (see JOIN_RETRY_MS), unless this conversation is over by then. */
  private retryJoinLater(sessionId: string, attempt = 0) {
    if (this.joinTimer || this.state.sessionId !== sessionId || !this.live) return;
    const wait = Math.min(JOIN_RETRY_MAX_MS, JOIN_RETRY_MS * 2 ** attempt);
    this.joinTimer = setTimeout(() => {
      this.joinTimer = null;
      if (this.state.sessionId !== sessionId) return;
      void this.joinUntilDone(attempt + 1).then((later) => {
        if (later === 'refused' && this.state.sessionId === sessionId) this.dropConversation();
      });
    }, wait);
  }

  /** The conversation is gone for this page: forgotten, and the next message starts another. */
  private dropConversation() {
    this.forget();
    this.set({ sessionId: null, mode: 'bot', agentName: null, agentTyping: false, pending: false });
  }

  private absorbHistory(rawMessages: unknown, rawSession: unknown) {
    const list = Array.isArray(rawMessages) ? rawMessages : [];
    for (const raw of list) {
      const seq = (raw as { seq?: unknown })?.seq;
      if (typeof seq === 'number') this.lastSeq = Math.max(this.lastSeq, seq);
      const m = toMessage(raw);
      if (m) this.upsert(m);
    }
    const limit = this.theme.messageHistoryLimit;
    if (this.state.messages.length > limit) this.set({ messages: this.state.messages.slice(-limit) });
    this.applySession(rawSession);
    // A reply saved while the socket was down arrives here, not as a live `new-message`.
    if (this.state.pending) {
      const last = [...this.state.messages].reverse().find((m) => m.role === 'user' || m.role === 'bot');
      if (last?.role === 'bot' && !last.streaming) this.set({ pending: false });
    }
  }

  /**
   * Takes the mode from the server's session (the rules of the engine's `Mode::of`): resolved or
   * neither assigned nor asking, the bot; assigned, the agent; asking, waiting. A resolve or a
   * release missed while the socket was down thus returns the visitor to the bot.
   */
  private applySession(rawSession: unknown) {
    const s = (rawSession ?? {}) as Record<string, unknown>;
    if (typeof s.status === 'string') {
      const agent = s.assignedAgent as { name?: string } | null | undefined;
      if (s.status !== 'resolved' && agent) this.set({ mode: 'agent', agentName: agent.name ?? 'Agent', pending: false });
      else if (s.status !== 'resolved' && s.needsHumanSupport === true) this.set({ mode: 'waiting', agentName: null, agentTyping: false });
      else this.set({ mode: 'bot', agentName: null, agentTyping: false });
    }
    if (s.customerEmail || s.customerName || s.customerPhone) this.set({ leadGiven: true });
  }

  private upsert(m: ChatMessage) {
    const messages = [...this.state.messages];
    const at = messages.findIndex((x) => x.id === m.id);
    if (at >= 0) {
      messages[at] = m;
    } else {
      // The server's copy of a message shown before it was saved replaces it.
      // A saved bot reply replaces the bubble its deltas streamed into (those carry a
      // placeholder id, `pending-<seq>`, as the message has no id until it is saved).
      // A bubble still sending before one marked not sent: that is the one the copy is of.
      const sameWords = (x: ChatMessage) => x.local && x.content === m.content;
      const local =
        m.role === 'user'
          ? (() => {
              const sending = messages.findIndex((x) => sameWords(x) && !x.failed);
              return sending >= 0 ? sending : messages.findIndex(sameWords);
            })()
          : m.role === 'bot' && !m.streaming
            ? messages.findIndex((x) => x.streaming)
            : -1;
      if (local >= 0) messages[local] = m;
      else messages.push(m);
    }
    this.set({ messages });
  }

  private listen(live: Live) {
    live.on('new-message', (p) => {
      if (p.sessionId && p.sessionId !== this.state.sessionId) return;
      const raw = p.message as Record<string, unknown> | undefined;
      const seq = raw?.seq;
      if (typeof seq === 'number') this.lastSeq = Math.max(this.lastSeq, seq);
      const m = toMessage(raw);
      if (!m) return;
      const show = () => {
        const known = this.state.messages.some((x) => x.id === m.id);
        this.upsert(m);
        if (m.role === 'bot') this.set({ pending: false });
        if (!known && (m.role === 'bot' || m.role === 'agent')) this.onIncoming();
        if (m.role === 'agent') this.set({ agentTyping: false });
      };
      if (m.role === 'bot') this.afterTyping(show);
      else show();
    });
    live.on('message-delta', (p) => {
      const id = typeof p.messageId === 'string' ? p.messageId : null;
      const delta = typeof p.delta === 'string' ? p.delta : '';
      if (!id) return;
      this.afterTyping(() => {
        const existing = this.state.messages.find((x) => x.id === id);
        if (existing && !existing.streaming) return; // the final message is already here
        this.upsert({ id, role: 'bot', content: (existing?.content ?? '') + delta, streaming: true });
      });
    });
    // After the reply it follows, which waits for the typing delay too.
    live.on('handoff-offered', (p) => {
      if (p.sessionId === this.state.sessionId) this.afterTyping(() => this.set({ handoffOffered: true }));
    });
    live.on('support-requested', () => this.set({ mode: 'waiting' }));
    live.on('agent-joined', (p) => {
      const name = typeof p.agentName === 'string' && p.agentName ? p.agentName : 'Agent';
      this.set({ mode: 'agent', agentName: name, pending: false });
      this.onIncoming();
      // The composer says only when typing starts or stops: one already under way is told now.
      if (this.visitorTyping) this.typing(true);
    });
    live.on('agent-typing', (p) => {
      const typing = p.isTyping === true;
      this.set({ agentTyping: typing });
      // An agent whose tab closed mid-sentence never says they stopped: the dots go after a while.
      if (this.typingTimer) clearTimeout(this.typingTimer);
      this.typingTimer = typing ? setTimeout(() => this.set({ agentTyping: false }), AGENT_TYPING_MS) : null;
    });
    // The team changed the conversation (status, release, an edited message) or deleted it.
    live.on('session-updated', (p) => {
      if (p.sessionId === this.state.sessionId) this.applySession(p.session);
    });
    live.on('message-updated', (p) => {
      if (p.sessionId && p.sessionId !== this.state.sessionId) return;
      const m = toMessage(p.message);
      if (m && this.state.messages.some((x) => x.id === m.id)) this.upsert(m);
    });
    live.on('session-deleted', (p) => {
      if (p.sessionId !== this.state.sessionId) return;
      // The next message starts a new conversation; what is on screen stays until then.
      this.dropConversation();
    });
    // The server's own note ('Session resolved by …') arrives as a saved system message.
    live.on('session-resolved', () => this.set({ mode: 'bot', agentName: null, agentTyping: false }));
    live.on('error', (p) => {
      const message = typeof p.message === 'string' ? p.message : ERROR_TEXT;
      this.showError(message);
    });
  }

  /**
   * Runs `show` once the typing has shown for the bot's typing delay since the visitor's last
   * message; at once when that time has passed and nothing is held before it (order is kept).
   */
  private afterTyping(show: () => void) {
    const wait = replyWait(this.sentAt, Date.now(), this.theme.typingDelay);
    if (wait === 0 && this.held.length === 0) {
      show();
      return;
    }
    this.held.push(show);
    if (this.heldTimer) return;
    this.heldTimer = setTimeout(() => {
      this.heldTimer = null;
      const due = this.held;
      this.held = [];
      due.forEach((fn) => fn());
    }, wait);
  }

  private showError(text: string) {
    // A refusal comes as the call's failed ack and as an `error` event: one bubble says it.
    const now = Date.now();
    const repeat = this.lastError?.text === text && now - this.lastError.at < SAME_ERROR_MS;
    this.lastError = { text, at: now };
    if (!repeat) this.upsert({ id: `error-${++localIds}`, role: 'bot', content: text, isError: true });
    this.set({ pending: false });
  }

  /** Sends the visitor's message (already checked by the composer's rules). */
  async send(text: string, lead?: Partial<ContactDetails>, clientId: string = newClientId()): Promise<void> {
    const local: ChatMessage = { id: `local-${++localIds}`, role: 'user', content: text, local: true, clientId };
    // The bot answers until an agent has taken the conversation, also while one is awaited.
    const awaitsReply = this.state.mode !== 'agent';
    if (awaitsReply) this.sentAt = Date.now();
    this.set({ messages: [...this.state.messages, local], pending: awaitsReply });
    if (!this.state.sessionId) {
      await this.start(text, lead, true, clientId);
      return;
    }
    try {
      const ack = await this.live!.emit('send-message', { sessionId: this.state.sessionId, message: text, clientId });
      if (ack.success === true) {
        this.settle(local.id, toMessage(ack.message));
        // A resend whose first send was saved earlier, with messages since (its reply, or an
        // agent's): no reply to it is coming now.
        const seq = (ack.message as { seq?: unknown } | undefined)?.seq;
        const answered = typeof seq === 'number' && seq < this.lastSeq;
        if (ack.agentConnected === true || answered) this.set({ pending: false });
      } else if (ack.error === BUSY) {
        this.markFailed([local.id]);
      } else {
        // Refused (too long, too fast, closed...): the server's words say why.
        this.dropLocal(local.id);
        this.showError(typeof ack.error === 'string' ? ack.error : ERROR_TEXT);
      }
    } catch {
      this.markFailed([local.id]);
    }
  }

  /** Sends a message marked not sent again, as the conversation's latest. */
  async retry(id: string): Promise<void> {
    const m = this.state.messages.find((x) => x.id === id && x.failed);
    if (!m || this.state.pending) return;
    this.dropLocal(id);
    // Its first send may have arrived with only the ack lost: the same id gets that copy back.
    await this.send(m.content, undefined, m.clientId);
  }

  private dropLocal(id: string) {
    this.set({ messages: this.state.messages.filter((m) => m.id !== id) });
  }

  /** The saved copy the ack carries takes its own bubble's place (not another with the same words). */
  private settle(localId: string, saved: ChatMessage | null) {
    if (!saved) return;
    const known = this.state.messages.some((m) => m.id === saved.id);
    if (known) this.dropLocal(localId);
    else this.set({ messages: this.state.messages.map((m) => (m.id === localId ? saved : m)) });
  }

  private markFailed(ids: string[]) {
    this.set({ messages: this.state.messages.map((m) => (ids.includes(m.id) ? { ...m, failed: true } : m)), pending: false });
  }

  /**
   * The first message: starts the conversation over HTTP, then goes live. A visitor's message the
   * server may not have had (unreachable, or failing on its side) stays with Retry when
   * `retryable`; otherwise the error says it. Sent again with the same `clientId` (Retry), a
   * message the server did have gets its first answer back: one conversation, answered once.
   */
  private async start(text: string, lead?: Partial<ContactDetails>, retryable = true, clientId?: string): Promise<boolean> {
    let res: Awaited<ReturnType<Transport['startConversation']>>;
    const locals = this.state.messages.filter((m) => m.local && !m.failed);
    const unsent = () => {
      if (retryable) this.markFailed(locals.map((m) => m.id));
      else {
        this.set({ messages: this.state.messages.filter((m) => !locals.includes(m)) });
        this.showError(ERROR_TEXT);
      }
    };
    try {
      res = await this.transport.startConversation({
        botId: this.botId,
        message: text,
        ...(lead ? { leadData: lead } : {}),
        ...(clientId ? { clientId } : {}),
      });
    } catch {
      unsent();
      return false;
    }
    if (!res.ok && res.status >= 500) {
      unsent();
      return false;
    }
    if (!res.ok) {
      this.set({ messages: this.state.messages.filter((m) => !locals.includes(m)) });
      const err = (res.body.error ?? {}) as { message?: string };
      // The server's own words for what was refused (too long, offline, not on this site...).
      this.showError(err.message ? err.message : ERROR_TEXT);
      return false;
    }
    this.token = String(res.body.visitorToken ?? '');
    this.set({ sessionId: String(res.body.sessionId ?? '') });
    this.remember();
    const user = toMessage(res.body.message);
    const reply = toMessage(res.body.reply);
    if (user) this.upsert(user);
    // The live channel joins after the reply shows: its history would show the reply at once.
    await new Promise<void>((shown) =>
      this.afterTyping(() => {
        if (reply) {
          this.upsert(reply);
          this.onIncoming();
        }
        this.set({ pending: false, ...(res.body.offerHandoff === true ? { handoffOffered: true } : {}) });
        shown();
      }),
    );
    const joined = await this.joinUntilDone();
    if (joined === 'refused' && this.state.sessionId) this.dropConversation();
    return true;
  }

  openContactForm() {
    this.set({ contactFormOpen: true });
  }

  closeContactForm() {
    this.set({ contactFormOpen: false });
  }

  /** Asks for a human, with the contact details the visitor chose to give. */
  async requestSupport(details: Partial<ContactDetails> | null): Promise<void> {
    // Nothing is sent while a reply is pending: a first message's conversation may not exist yet.
    if (this.state.pending) return;
    this.set({ contactFormOpen: false });
    if (!this.state.sessionId) {
      const text = 'I would like to talk to a human.';
      this.set({ messages: [...this.state.messages, { id: `local-${++localIds}`, role: 'user', content: text, local: true }], pending: true });
      if (!(await this.start(text, details ?? undefined, false))) return;
    }
    // The conversation just started was turned away at once (deleted): nothing to ask in.
    if (!this.live || !this.state.sessionId) {
      this.showError(ERROR_TEXT);
      return;
    }
    try {
      const ack = await this.live.emit('request-human-support', {
        sessionId: this.state.sessionId,
        message: 'Requested human support',
        customerInfo: details ?? {},
      });
      if (ack.success === true) {
        this.set({ mode: this.state.mode === 'agent' ? 'agent' : 'waiting', leadGiven: this.state.leadGiven || !!details });
      } else {
        this.showError(typeof ack.error === 'string' ? ack.error : ERROR_TEXT);
      }
    } catch {
      this.showError(ERROR_TEXT);
    }
  }

  /** The lead card's details, saved as the bot's lead. */
  async leaveDetails(details: Partial<ContactDetails> | null): Promise<void> {
    if (!details) {
      this.set({ leadDismissed: true });
      return;
    }
    this.set({ leadGiven: true });
    if (!this.state.sessionId || !this.live) return;
    try {
      await this.live.emit('leave-details', { sessionId: this.state.sessionId, leadData: details });
    } catch {
      console.warn('[Parley] lead capture failed');
    }
  }

  dismissLead() {
    this.set({ leadDismissed: true });
  }

  /** The visitor's typing, told to a connected agent (and to one who joins mid-sentence). */
  typing(isTyping: boolean) {
    this.visitorTyping = isTyping;
    if (this.state.mode !== 'agent' || !this.live || !this.state.sessionId) return;
    void this.live.emit('typing', { sessionId: this.state.sessionId, isTyping }).catch(() => {});
  }

  dispose() {
    this.stopJoinRetry();
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typingTimer = null;
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.heldTimer = null;
    this.held = [];
    this.live?.close();
    this.live = null;
  }
}
