// One test chat (per panel instance): the conversation with the real bot, the pending state,
// and the lead-capture rule (spec 2 §4).
import { proxy } from 'valtio';
import { ApiError } from '@/lib/api';
import { replyWait } from '@parley/shared/look';
import { chatApi, type LeadData } from '../api/chat';

export type ChatRole = 'bot' | 'user' | 'agent' | 'system';

export interface TestMessage {
  id: number;
  role: ChatRole;
  content: string;
  timestamp: string;
  isError?: boolean;
  /** The bot's "did you mean" quick replies with this reply. */
  suggestions?: string[];
}

export const CHAT_ERROR = 'Sorry, I encountered an error processing your request.';
export const LEAD_MODAL_DELAY_MS = 2000;
export const STATUS_PHRASES = ['Thinking...', 'Searching the knowledge base...', 'Writing a reply...'] as const;

/** After a reply: lead capture on, no lead data given, more than 4 messages. */
export function shouldOfferLead(o: { enableLeadCapture: boolean; leadGiven: boolean; messageCount: number }): boolean {
  return o.enableLeadCapture && !o.leadGiven && o.messageCount > 4;
}

/** Only what was filled in; null when none of email, name, phone was (Continue just closes). */
export function leadFromForm(f: LeadData): LeadData | null {
  const out: LeadData = {};
  for (const k of ['name', 'email', 'phone', 'company'] as const) {
    const v = f[k]?.trim();
    if (v) out[k] = v;
  }
  return out.name || out.email || out.phone ? out : null;
}

export interface TestChatState {
  botId: string | null;
  messages: TestMessage[];
  pending: boolean;
  sessionId: string | null;
  visitorToken: string | null;
  /** Lead data given in this conversation (the modal does not come back). */
  lead: LeadData | null;
  /** Not saved yet: goes with the next message (no conversation yet, or saving it failed). */
  leadToSend: LeadData | null;
  leadModalOpen: boolean;
}

/** A conversation not started yet with `botId`. */
function fresh(botId: string | null): TestChatState {
  return { botId, messages: [], pending: false, sessionId: null, visitorToken: null, lead: null, leadToSend: null, leadModalOpen: false };
}

export function createTestChat() {
  const state = proxy<TestChatState>(fresh(null));
  let nextId = 1;
  let leadTimer: ReturnType<typeof setTimeout> | null = null;
  let generation = 0;

  const push = (role: ChatRole, content: string, isError = false) =>
    state.messages.push({ id: nextId++, role, content, timestamp: new Date().toISOString(), ...(isError ? { isError } : {}) });

  const clearTimer = () => {
    if (leadTimer) clearTimeout(leadTimer);
    leadTimer = null;
  };

  const actions = {
    /** A fresh conversation (another bot, or the user restarts). */
    reset(botId: string | null) {
      clearTimer();
      generation++;
      Object.assign(state, fresh(botId));
    },

    /** Sends `text` to the real bot; false when it may not be sent (blank, or a reply pending). */
    /** `typingDelay`: the reply shows no sooner than this many ms after the send, as in the live chat. */
    async send(text: string, opts: { enableLeadCapture: boolean; typingDelay?: number }): Promise<boolean> {
      const message = text.trim();
      if (!message || state.pending || !state.botId) return false;
      const gen = generation;
      push('user', message);
      state.pending = true;
      const sentAt = Date.now();
      const leadData = state.leadToSend ?? undefined;
      try {
        const res = await chatApi.send({
          message,
          botId: state.botId,
          ...(state.sessionId ? { sessionId: state.sessionId } : {}),
          ...(state.visitorToken ? { visitorToken: state.visitorToken } : {}),
          ...(leadData ? { leadData } : {}),
        });
        const wait = replyWait(sentAt, Date.now(), opts.typingDelay ?? 0);
        if (wait > 0) await new Promise((done) => setTimeout(done, wait));
        if (gen !== generation) return true;
        state.sessionId = res.sessionId;
        state.visitorToken = res.visitorToken;
        if (leadData) state.leadToSend = null;
        if (res.aiResponse) {
          push('bot', res.aiResponse);
          const suggestions = (res.suggestions ?? []).filter((q) => typeof q === 'string' && q.trim());
          const last = state.messages[state.messages.length - 1];
          if (suggestions.length && last) last.suggestions = suggestions;
        }
      } catch (err) {
        if (gen !== generation) return true;
        // A message the server refuses as given (too long for the bot's limits) says why; any
        // other failure is the spec's error bubble.
        push('bot', err instanceof ApiError && err.status === 422 ? err.message : CHAT_ERROR, true);
        return true;
      } finally {
        if (gen === generation) state.pending = false;
      }
      // The welcome bubble counts as a message.
      if (shouldOfferLead({ enableLeadCapture: opts.enableLeadCapture, leadGiven: !!state.lead, messageCount: state.messages.length + 1 })) {
        clearTimer();
        leadTimer = setTimeout(() => {
          leadTimer = null;
          if (gen === generation && !state.lead) state.leadModalOpen = true;
        }, LEAD_MODAL_DELAY_MS);
      }
      return true;
    },

    /**
     * Continue: with nothing of email/name/phone it just closes. Otherwise the lead is saved at
     * once, as the visitor chat saves it, so an owner who stops here still finds it in Leads;
     * before the first reply there is no conversation to save it to, and it goes with the first
     * message. A save that fails leaves it for the next message (spec: lead capture failures are
     * only logged).
     */
    async submitLead(form: LeadData): Promise<void> {
      const lead = leadFromForm(form);
      state.leadModalOpen = false;
      if (!lead) return;
      state.lead = lead;
      const { sessionId, visitorToken } = state;
      if (!sessionId || !visitorToken) {
        state.leadToSend = lead;
        return;
      }
      // Not sent again with a message typed while this is under way.
      state.leadToSend = null;
      const gen = generation;
      try {
        await chatApi.leaveDetails(visitorToken, sessionId, lead);
      } catch (err) {
        console.warn('[Parley] lead capture failed', err);
        if (gen === generation) state.leadToSend = lead;
      }
    },

    skipLead() {
      state.leadModalOpen = false;
    },

    dispose() {
      clearTimer();
      generation++;
    },
  };
  return { state, actions };
}

export type TestChat = ReturnType<typeof createTestChat>;
