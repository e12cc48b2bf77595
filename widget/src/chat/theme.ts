// The bot's look for the visitor chat, from GET /api/bots/{id}/theme, with the spec's defaults for
// anything missing (and for everything when the call fails).

import { FAQ_LIMIT } from '../shared/look';

export interface ChatTheme {
  name: string;
  primaryColour: string;
  secondaryColour: string;
  backgroundColour: string;
  themeMode: 'light' | 'dark';
  icon: string | null;
  typography: string;
  customQuestions: string[];
  welcomeMessage: string;
  enableHandover: boolean;
  /** 'inactive' bots show an offline state. */
  status: 'active' | 'inactive';
  placeholder: string;
  headerTitle: string;
  headerSubtitle: string;
  enableHistory: boolean;
  messageHistoryLimit: number;
  maxMessageLength: number;
  enableLeadCapture: boolean;
  leadCaptureMessage: string;
  enableSounds: boolean;
  enableTypingIndicator: boolean;
  showBranding: boolean;
  borderRadius: number;
  shadowIntensity: string;
  animationStyle: string;
  /** The avatar URL set in the editor; the bot's icon when blank. */
  botAvatar: string | null;
  /** Least time (ms) the typing shows before a reply appears. */
  typingDelay: number;
  companyName: string;
  supportEmail: string;
  handoverMessage: string;
  businessHours: string;
  responseTime: string;
  enableQuickReplies: boolean;
  enableFAQ: boolean;
  /** Questions of the bot's trained Q&A pairs (sent only with the FAQ switch on). */
  faqQuestions: string[];
  /** Whether an agent is online now (the handoff says when the team is back otherwise). */
  agentsOnline: boolean;
  /** Checked by the server on save; applied inside this page only. */
  customCSS: string;
}

export const DEFAULT_THEME: ChatTheme = {
  name: 'Chat Support',
  primaryColour: '#3B82F6',
  secondaryColour: '#1c1d1d',
  backgroundColour: '#f0f9ff',
  themeMode: 'light',
  icon: null,
  typography: '16px',
  customQuestions: [],
  welcomeMessage: 'Hello, how can I help you today?',
  enableHandover: true,
  status: 'active',
  placeholder: 'Type your message...',
  headerTitle: '',
  headerSubtitle: "We're here to help",
  enableHistory: true,
  messageHistoryLimit: 100,
  maxMessageLength: 500,
  enableLeadCapture: true,
  leadCaptureMessage: 'To provide you with the best support, could you please share some details?',
  enableSounds: true,
  enableTypingIndicator: true,
  showBranding: true,
  borderRadius: 12,
  shadowIntensity: 'medium',
  animationStyle: 'slide-up',
  botAvatar: null,
  typingDelay: 1500,
  companyName: '',
  supportEmail: '',
  handoverMessage: 'Let me connect you with a human agent who can better assist you.',
  businessHours: '',
  responseTime: '< 2 minutes',
  enableQuickReplies: true,
  enableFAQ: true,
  faqQuestions: [],
  agentsOnline: true,
  customCSS: '',
};

const str = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v : fallback);
const bool = (v: unknown, fallback: boolean) => (typeof v === 'boolean' ? v : fallback);
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback);
/** Like num, but 0 is a value (a square corner). */
const count = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
const text = (v: unknown) => (typeof v === 'string' ? v : '');
const questions = (v: unknown, most: number) =>
  Array.isArray(v) ? v.filter((q): q is string => typeof q === 'string' && q.trim() !== '').slice(0, most) : [];

export function withDefaults(raw: unknown): ChatTheme {
  // The server may wrap it ({ theme: {...} } / { bot: {...} }) or not.
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const t = (r.theme ?? r.bot ?? r) as Record<string, unknown>;
  return {
    name: str(t.name, DEFAULT_THEME.name),
    primaryColour: str(t.primaryColour, DEFAULT_THEME.primaryColour),
    secondaryColour: str(t.secondaryColour, DEFAULT_THEME.secondaryColour),
    backgroundColour: str(t.backgroundColour, DEFAULT_THEME.backgroundColour),
    themeMode: t.themeMode === 'dark' ? 'dark' : 'light',
    icon: typeof t.icon === 'string' && t.icon ? t.icon : null,
    typography: str(t.typography, DEFAULT_THEME.typography),
    customQuestions: questions(t.customQuestions, 5),
    welcomeMessage: str(t.welcomeMessage, DEFAULT_THEME.welcomeMessage),
    enableHandover: bool(t.enableHandover, true),
    status: t.status === 'inactive' ? 'inactive' : 'active',
    placeholder: str(t.placeholder, DEFAULT_THEME.placeholder),
    headerTitle: typeof t.headerTitle === 'string' ? t.headerTitle : '',
    headerSubtitle: str(t.headerSubtitle, DEFAULT_THEME.headerSubtitle),
    enableHistory: bool(t.enableHistory, true),
    messageHistoryLimit: num(t.messageHistoryLimit, DEFAULT_THEME.messageHistoryLimit),
    maxMessageLength: num(t.maxMessageLength, DEFAULT_THEME.maxMessageLength),
    enableLeadCapture: bool(t.enableLeadCapture, true),
    leadCaptureMessage: str(t.leadCaptureMessage, DEFAULT_THEME.leadCaptureMessage),
    enableSounds: bool(t.enableSounds, true),
    enableTypingIndicator: bool(t.enableTypingIndicator, true),
    showBranding: bool(t.showBranding, true),
    borderRadius: count(t.borderRadius, DEFAULT_THEME.borderRadius),
    shadowIntensity: str(t.shadowIntensity, DEFAULT_THEME.shadowIntensity),
    animationStyle: str(t.animationStyle, DEFAULT_THEME.animationStyle),
    botAvatar: typeof t.botAvatar === 'string' && t.botAvatar.trim() ? t.botAvatar.trim() : null,
    typingDelay: count(t.typingDelay, DEFAULT_THEME.typingDelay),
    companyName: text(t.companyName),
    supportEmail: text(t.supportEmail),
    handoverMessage: str(t.handoverMessage, DEFAULT_THEME.handoverMessage),
    businessHours: text(t.businessHours),
    responseTime: str(t.responseTime, DEFAULT_THEME.responseTime),
    enableQuickReplies: bool(t.enableQuickReplies, true),
    enableFAQ: bool(t.enableFAQ, true),
    faqQuestions: questions(t.faqQuestions, FAQ_LIMIT),
    agentsOnline: bool(t.agentsOnline, true),
    customCSS: text(t.customCSS),
  };
}

/** Never throws: a failed load is only logged and the defaults stay (spec, error catalogue). */
export async function loadTheme(botId: string, signal?: AbortSignal): Promise<ChatTheme> {
  try {
    const res = await fetch(`/api/bots/${encodeURIComponent(botId)}/theme`, {
      headers: { Accept: 'application/json' },
      signal,
    });
    if (!res.ok) throw new Error(`theme ${res.status}`);
    return withDefaults(await res.json());
  } catch (err) {
    if ((err as Error)?.name !== 'AbortError') console.warn('[Parley] theme load failed; using defaults', err);
    return DEFAULT_THEME;
  }
}
