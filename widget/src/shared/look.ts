// The one mapping from a bot's Customize settings to what its chat shows and does. The visitor
// chat (/chat, also inside widget.js's iframe), the launcher and the dashboard's test preview all
// import this file (the dashboard by the `@parley/look` alias), so the preview cannot drift from
// what visitors see. No imports: both apps' builds and type checks take it as it is.

/** The settings that decide the chat's look, under the public theme's names. */
export interface LookSettings {
  primaryColour: string;
  secondaryColour: string;
  backgroundColour: string;
  themeMode: string;
  typography: string;
  borderRadius: number;
  shadowIntensity: string;
  animationStyle: string;
}

export const SHADOWS: Record<string, string> = {
  none: 'none',
  light: '0 1px 4px rgba(0,0,0,0.12)',
  medium: '0 6px 18px rgba(0,0,0,0.16)',
  heavy: '0 14px 36px rgba(0,0,0,0.32)',
};

/** Chat window sizes in px; 'full' fills the screen (the preview: its column). */
export const CHAT_SIZES: Record<string, { width: number; height: number }> = {
  compact: { width: 340, height: 520 },
  medium: { width: 380, height: 600 },
  large: { width: 440, height: 700 },
};

/** Each animation style: how a bubble (and widget.js's window, when it opens) comes in. */
export const KEYFRAMES =
  '@keyframes parley-fade{from{opacity:0}to{opacity:1}}' +
  '@keyframes parley-slide-up{from{opacity:0;transform:translateY(10px)}to{opacity:1;transform:none}}' +
  '@keyframes parley-slide-right{from{opacity:0;transform:translateX(-12px)}to{opacity:1;transform:none}}' +
  '@keyframes parley-scale{from{opacity:0;transform:scale(0.92)}to{opacity:1;transform:none}}';

const ANIMATIONS = ['fade', 'slide-up', 'slide-right', 'scale'];

/** The CSS `animation` value of a style (slide-up when unknown). */
export function animationCss(style: string): string {
  return `parley-${ANIMATIONS.includes(style) ? style : 'slide-up'} 0.25s ease-out`;
}

function rgb(hex: string): [number, number, number] | null {
  let h = hex.trim().replace(/^#/, '');
  if (h.length === 3) h = h.split('').map((c) => c + c).join('');
  if (h.length === 8) h = h.slice(0, 6);
  if (!/^[0-9a-fA-F]{6}$/.test(h)) return null;
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

const toHex = (c: number[]) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

/** `a` mixed into `b` by `t` (0..1); invalid colours fall back to `b`. */
export function mix(a: string, b: string, t: number): string {
  const x = rgb(a);
  const y = rgb(b);
  if (!x || !y) return b;
  return toHex([x[0] * t + y[0] * (1 - t), x[1] * t + y[1] * (1 - t), x[2] * t + y[2] * (1 - t)]);
}

/** Black or white, whichever reads on `bg`. */
export function readableOn(bg: string): string {
  const c = rgb(bg);
  if (!c) return '#1c1d1d';
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0) > 0.45 ? '#1c1d1d' : '#ffffff';
}

export interface ChatLook {
  primary: string;
  background: string;
  text: string;
  botBubble: string;
  botText: string;
  userText: string;
  /** The window's corners, px. */
  radius: number;
  /** A bubble's corners, px: never square, so a bubble still reads as one at 0. */
  bubbleRadius: number;
  shadow: string;
  animation: string;
  fontSize: string;
}

export function chatLook(s: LookSettings): ChatLook {
  const dark = s.themeMode === 'dark';
  const background = dark ? '#1a1b1e' : s.backgroundColour;
  const botBubble = dark ? '#2c2e33' : mix(s.secondaryColour, '#ffffff', 0.08);
  const radius = Number.isFinite(s.borderRadius) && s.borderRadius >= 0 ? s.borderRadius : 12;
  return {
    primary: s.primaryColour,
    background,
    text: readableOn(background),
    botBubble,
    botText: readableOn(botBubble),
    userText: readableOn(s.primaryColour),
    radius,
    bubbleRadius: Math.max(radius, 4),
    shadow: SHADOWS[s.shadowIntensity] ?? SHADOWS.medium ?? 'none',
    animation: animationCss(s.animationStyle),
    fontSize: s.typography,
  };
}

/** The look as CSS custom properties, set on the chat's outer element; the style sheets use them. */
export function lookVars(l: ChatLook): Record<string, string> {
  return {
    '--primary': l.primary,
    '--parley-background': l.background,
    '--parley-text': l.text,
    '--parley-bot-bubble': l.botBubble,
    '--parley-bot-text': l.botText,
    '--parley-user-text': l.userText,
    '--parley-radius': `${l.radius}px`,
    '--parley-bubble-radius': `${l.bubbleRadius}px`,
    '--parley-shadow': l.shadow,
    '--parley-animation': l.animation,
  };
}

/** Most questions of the bot's Q&A pairs the FAQ switch suggests (the server sends as many). */
export const FAQ_LIMIT = 5;

/**
 * The suggested questions under the welcome message: the quick questions (Quick replies on),
 * then the questions of the bot's trained Q&A pairs (FAQ on), each once.
 */
export function suggestedQuestions(s: {
  enableQuickReplies: boolean;
  customQuestions: readonly string[];
  enableFAQ: boolean;
  faqQuestions: readonly string[];
}): string[] {
  const out: string[] = [];
  const add = (list: readonly string[]) => {
    for (const q of list) {
      const t = q.trim();
      if (t && !out.includes(t)) out.push(t);
    }
  };
  if (s.enableQuickReplies) add(s.customQuestions);
  if (s.enableFAQ) add(s.faqQuestions.slice(0, FAQ_LIMIT));
  return out;
}

/** The header's title: the owner's header title, unless it is the stock one, else the bot's name. */
export function headerTitle(title: string, botName: string): string {
  const t = title.trim();
  return t && t !== 'Chat Support' ? t : botName.trim() || 'Assistant';
}

/** What the footer under the composer shows. */
export function footer(s: { companyName: string; supportEmail: string; showBranding: boolean }) {
  const company = s.companyName.trim();
  const email = s.supportEmail.trim();
  return {
    company: company ? `Chat with ${company}` : null,
    email: email || null,
    branding: s.showBranding,
  };
}

/** The handoff form's words: the owner's handover message, or when the team is away, when it is back. */
export function handoffIntro(s: { handoverMessage: string; businessHours: string; agentsOnline: boolean }): string {
  if (s.agentsOnline) return s.handoverMessage.trim() || 'Let me connect you with a human agent who can better assist you.';
  const hours = s.businessHours.trim();
  return `Our team is away right now.${hours ? ` We're available ${hours}.` : ''} Leave your details and we'll get back to you.`;
}

/** The banner while a person is awaited: the expected wait, or when the team is back. */
export function waitingText(s: { responseTime: string; businessHours: string; agentsOnline: boolean }): { title: string; detail: string } {
  if (!s.agentsOnline) {
    const hours = s.businessHours.trim();
    return {
      title: 'Our team is away right now',
      detail: hours ? `We're available ${hours}; we'll reply as soon as we're back.` : "We'll reply as soon as we're back.",
    };
  }
  const wait = s.responseTime.trim();
  return { title: 'Connecting you with a human agent...', detail: `Estimated wait time: ${wait || '2-5 minutes'}` };
}

/** How long a reply that came `now` must still wait so the typing shows for `typingDelay` ms after the send. */
export function replyWait(sentAt: number, now: number, typingDelay: number): number {
  return Math.max(0, sentAt + typingDelay - now);
}

/** Class names on the chat's parts, the same in the live chat and the preview: custom CSS targets them. */
export const HOOKS = {
  chat: 'parley-chat',
  header: 'parley-header',
  messages: 'parley-messages',
  bubble: 'parley-bubble',
  bot: 'parley-bubble-bot',
  user: 'parley-bubble-user',
  suggestions: 'parley-suggestions',
  composer: 'parley-composer',
  footer: 'parley-footer',
} as const;
