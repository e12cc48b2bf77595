// The visitor chat's rules (spec 2: public visitor chat, §5, §9), as pure functions so they are
// tested on their own.

/** Loading screen texts, rotating every 1.5 s; the bar stops at 95% until the chat is ready. */
export const LOADING_TEXTS = ['Connecting to your assistant...', 'Loading the conversation...', 'Almost ready...'];
export const LOADING_ROTATE_MS = 1500;
export const LOADING_MAX_PERCENT = 95;

/** Shown while the assistant is working on a reply, one every 2 s. */
export const THINKING_PHRASES = ['Thinking...', 'Looking through what I know...', 'Putting an answer together...', 'Almost there...'];
export const THINKING_ROTATE_MS = 2000;

/** The talk-to-human button: after this many messages, or this long in the chat. */
export const HANDOFF_AFTER_MESSAGES = 4;
export const HANDOFF_AFTER_MS = 10_000;

/** The lead card: once more than this many messages exist, this long after the last reply. */
export const LEAD_AFTER_MESSAGES = 4;
export const LEAD_DELAY_MS = 2000;

export const WAITING_TEXT = 'Connecting you with a human agent...';
export const WAIT_ESTIMATE_TEXT = 'Estimated wait time: 2-5 minutes';
export const ERROR_TEXT = 'Sorry, I encountered an error processing your request.';

/**
 * The text to send, or null when nothing may be sent: empty, a reply pending, or longer than the
 * bot's maximum (the server would refuse it; the visitor keeps the text to shorten it).
 */
export function sendable(text: string, pending: boolean, maxLength: number): string | null {
  const trimmed = text.trim();
  return trimmed && !pending && [...trimmed].length <= maxLength ? trimmed : null;
}

export interface HandoffInputs {
  enableHandover: boolean;
  supportRequested: boolean;
  agentConnected: boolean;
  messageCount: number;
  elapsedMs: number;
  /** The server offered a person (the bot did not know, or could not answer): no waiting. */
  offered?: boolean;
}

export function showHandoffButton(s: HandoffInputs): boolean {
  return (
    s.enableHandover &&
    !s.supportRequested &&
    !s.agentConnected &&
    (!!s.offered || s.messageCount >= HANDOFF_AFTER_MESSAGES || s.elapsedMs >= HANDOFF_AFTER_MS)
  );
}

export interface LeadInputs {
  enableLeadCapture: boolean;
  leadGiven: boolean;
  leadDismissed: boolean;
  messageCount: number;
  pending: boolean;
}

export function leadDue(s: LeadInputs): boolean {
  return s.enableLeadCapture && !s.leadGiven && !s.leadDismissed && !s.pending && s.messageCount > LEAD_AFTER_MESSAGES;
}

export interface ContactDetails {
  name: string;
  email: string;
  phone: string;
  company: string;
}

/** Blank fields dropped; null when the person gave no way to reach them (the form just closes). */
export function contactOrNull(d: ContactDetails): Partial<ContactDetails> | null {
  const out: Partial<ContactDetails> = {};
  for (const key of ['name', 'email', 'phone', 'company'] as const) {
    const v = d[key].trim();
    if (v) out[key] = v;
  }
  return out.name || out.email || out.phone ? out : null;
}

/** The counter under the message box ("12/500"); over the limit it is flagged, not cut. */
export function counter(text: string, max: number): { label: string; over: boolean } {
  const n = [...text].length;
  return { label: `${n}/${max}`, over: n > max };
}
