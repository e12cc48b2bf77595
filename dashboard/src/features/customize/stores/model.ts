// Customization settings (spec 2 §3), their defaults (spec 1 §3, spec 2 §9) and how they map to
// and from a bot's fields as PUT /api/bots/{id} takes them (store WidgetConfig, camelCase).
import type { Bot } from '@/features/bots/api/bots';

export interface Palette {
  name: string;
  primary: string;
  secondary: string;
  background: string;
}

export const PALETTES: readonly Palette[] = [
  { name: 'Ocean Blue', primary: '#3B82F6', secondary: '#1c1d1d', background: '#f0f9ff' },
  { name: 'Forest Green', primary: '#16A34A', secondary: '#14532d', background: '#f0fdf4' },
  { name: 'Royal Purple', primary: '#7C3AED', secondary: '#2e1065', background: '#f5f3ff' },
  { name: 'Sunset Orange', primary: '#EA580C', secondary: '#431407', background: '#fff7ed' },
  { name: 'Rose Pink', primary: '#E11D48', secondary: '#4c0519', background: '#fff1f2' },
  { name: 'Midnight', primary: '#6366F1', secondary: '#e2e8f0', background: '#0f172a' },
];

export const FONT_SIZES = ['14px', '16px', '18px', '20px'] as const;
export const CHAT_SIZES = ['compact', 'medium', 'large', 'full'] as const;
export const POSITIONS = ['bottom-right', 'bottom-left', 'top-right', 'top-left'] as const;
export const ANIMATIONS = ['fade', 'slide-up', 'slide-right', 'scale'] as const;
export const SHADOWS = ['none', 'light', 'medium', 'heavy'] as const;
export const THEMES = ['light', 'dark'] as const;

export const SLIDERS = {
  borderRadius: { min: 0, max: 24, step: 2 },
  typingDelay: { min: 500, max: 3000, step: 100 },
  autoOpenDelay: { min: 0, max: 600, step: 5 },
  messageHistoryLimit: { min: 10, max: 500, step: 10 },
  maxMessageLength: { min: 100, max: 2000, step: 50 },
} as const;

export const MAX_QUICK_QUESTIONS = 5;

export interface CustomizeSettings {
  selectedPalette: number;
  isCustomColorMode: boolean;
  customPrimaryColor: string;
  customSecondaryColor: string;
  customBgColor: string;
  themeMode: string;
  selectedFontSize: string;
  chatSize: string;
  chatPosition: string;
  animationStyle: string;
  borderRadius: number;
  shadowIntensity: string;
  botAvatar: string;
  botName: string;
  welcomeMessage: string;
  placeholder: string;
  systemPrompt: string;
  customQuestions: string[];
  enableTypingIndicator: boolean;
  enableQuickReplies: boolean;
  enableHistory: boolean;
  enableFAQ: boolean;
  enableHandover: boolean;
  enableLeadCapture: boolean;
  enableSounds: boolean;
  showBranding: boolean;
  leadCaptureMessage: string;
  typingDelay: number;
  messageHistoryLimit: number;
  maxMessageLength: number;
  companyName: string;
  headerTitle: string;
  headerSubtitle: string;
  supportEmail: string;
  customCSS: string;
  /** widget.js: the bubble beside the launcher until the chat opens. */
  popupMessage: string;
  /** widget.js: seconds before the chat opens by itself; 0 = never. */
  autoOpenDelay: number;
  handoverMessage: string;
  businessHours: string;
  responseTime: string;
}

export const DEFAULTS: CustomizeSettings = {
  selectedPalette: 0,
  isCustomColorMode: false,
  customPrimaryColor: '#3B82F6',
  customSecondaryColor: '#1c1d1d',
  customBgColor: '#f0f9ff',
  themeMode: 'light',
  selectedFontSize: '16px',
  chatSize: 'medium',
  chatPosition: 'bottom-right',
  animationStyle: 'slide-up',
  borderRadius: 12,
  shadowIntensity: 'medium',
  botAvatar: '',
  botName: '',
  welcomeMessage: 'Hello, how can I help you today?',
  placeholder: 'Type your message...',
  systemPrompt: 'You are a helpful assistant for customer support',
  customQuestions: [],
  enableTypingIndicator: true,
  enableQuickReplies: true,
  enableHistory: true,
  enableFAQ: true,
  enableHandover: true,
  enableLeadCapture: true,
  enableSounds: true,
  showBranding: true,
  leadCaptureMessage: 'To provide you with the best support, could you please share some details?',
  typingDelay: 1500,
  messageHistoryLimit: 100,
  maxMessageLength: 500,
  companyName: '',
  headerTitle: 'Chat Support',
  headerSubtitle: "We're here to help",
  supportEmail: '',
  customCSS: '',
  popupMessage: 'hey there! I am here to assist you. How can I help?',
  autoOpenDelay: 0,
  handoverMessage: 'Let me connect you with a human agent who can better assist you.',
  businessHours: '',
  responseTime: '< 2 minutes',
};

/** What Reset restores (spec 2 §9); the other settings stay as they are. */
export const RESET_DEFAULTS = {
  selectedPalette: 0,
  isCustomColorMode: false,
  customPrimaryColor: '#3B82F6',
  customSecondaryColor: '#1c1d1d',
  customBgColor: '#f0f9ff',
  selectedFontSize: '16px',
  chatSize: 'medium',
  animationStyle: 'slide-up',
  borderRadius: 12,
  shadowIntensity: 'medium',
} satisfies Partial<CustomizeSettings>;

export const RESET_CONFIRM = 'Reset all customizations to default values?';

/** Blanks dropped, trimmed, at most 5. */
export function cleanQuestions(list: readonly string[]): string[] {
  return list
    .map((q) => q.trim())
    .filter((q) => q.length > 0)
    .slice(0, MAX_QUICK_QUESTIONS);
}

const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
const bool = (v: unknown, fallback: boolean) => (typeof v === 'boolean' ? v : fallback);
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const oneOf = (v: unknown, list: readonly string[], fallback: string) =>
  typeof v === 'string' && list.includes(v) ? v : fallback;
const nonEmpty = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v : fallback);

/** A bot's fields as editor settings, the defaults where a field is missing. */
export function settingsFromBot(bot: Partial<Bot> | null | undefined): CustomizeSettings {
  const b = (bot ?? {}) as Record<string, unknown>;
  const d = DEFAULTS;
  const palette = num(b.selectedPalette, d.selectedPalette);
  return {
    selectedPalette: palette >= 0 && palette < PALETTES.length ? palette : 0,
    isCustomColorMode: bool(b.isCustomColorMode, d.isCustomColorMode),
    customPrimaryColor: nonEmpty(b.primaryColour, d.customPrimaryColor),
    customSecondaryColor: nonEmpty(b.secondaryColour, d.customSecondaryColor),
    customBgColor: nonEmpty(b.backgroundColour, d.customBgColor),
    themeMode: oneOf(b.themeMode, THEMES, d.themeMode),
    selectedFontSize: oneOf(b.typography, FONT_SIZES, d.selectedFontSize),
    chatSize: oneOf(b.chatSize, CHAT_SIZES, d.chatSize),
    chatPosition: oneOf(b.chatPosition, POSITIONS, d.chatPosition),
    animationStyle: oneOf(b.animationStyle, ANIMATIONS, d.animationStyle),
    borderRadius: num(b.borderRadius, d.borderRadius),
    shadowIntensity: oneOf(b.shadowIntensity, SHADOWS, d.shadowIntensity),
    botAvatar: str(b.botAvatar, d.botAvatar),
    botName: str(b.name, d.botName),
    welcomeMessage: nonEmpty(b.welcomeMessage, d.welcomeMessage),
    placeholder: nonEmpty(b.placeholder, d.placeholder),
    systemPrompt: nonEmpty(b.systemPrompt, d.systemPrompt),
    customQuestions: Array.isArray(b.customQuestions)
      ? cleanQuestions(b.customQuestions.filter((q): q is string => typeof q === 'string'))
      : [],
    enableTypingIndicator: bool(b.enableTypingIndicator, d.enableTypingIndicator),
    enableQuickReplies: bool(b.enableQuickReplies, d.enableQuickReplies),
    enableHistory: bool(b.enableHistory, d.enableHistory),
    enableFAQ: bool(b.enableFAQ, d.enableFAQ),
    enableHandover: bool(b.enableHandover, d.enableHandover),
    enableLeadCapture: bool(b.enableLeadCapture, d.enableLeadCapture),
    enableSounds: bool(b.enableSounds, d.enableSounds),
    showBranding: bool(b.showBranding, d.showBranding),
    leadCaptureMessage: nonEmpty(b.leadCaptureMessage, d.leadCaptureMessage),
    typingDelay: num(b.typingDelay, d.typingDelay),
    messageHistoryLimit: num(b.messageHistoryLimit, d.messageHistoryLimit),
    maxMessageLength: num(b.maxMessageLength, d.maxMessageLength),
    companyName: str(b.companyName, d.companyName),
    headerTitle: str(b.headerTitle, d.headerTitle),
    headerSubtitle: str(b.headerSubtitle, d.headerSubtitle),
    supportEmail: str(b.supportEmail, d.supportEmail),
    customCSS: str(b.customCSS, d.customCSS),
    popupMessage: str(b.popupMessage, d.popupMessage),
    autoOpenDelay: num(b.autoOpenDelay, d.autoOpenDelay),
    handoverMessage: nonEmpty(b.handoverMessage, d.handoverMessage),
    businessHours: str(b.businessHours, d.businessHours),
    responseTime: str(b.responseTime, d.responseTime),
  };
}

/** The colours in effect: the custom ones in custom mode, else the chosen palette's. */
export function effectiveColours(s: Pick<CustomizeSettings, 'isCustomColorMode' | 'selectedPalette' | 'customPrimaryColor' | 'customSecondaryColor' | 'customBgColor'>) {
  if (s.isCustomColorMode) {
    return { primary: s.customPrimaryColor, secondary: s.customSecondaryColor, background: s.customBgColor };
  }
  const p = PALETTES[s.selectedPalette] ?? PALETTES[0]!;
  return { primary: p.primary, secondary: p.secondary, background: p.background };
}

/** The body of PUT /api/bots/{id}: the server's field names. */
export function savePayload(s: CustomizeSettings): Record<string, unknown> {
  const colours = effectiveColours(s);
  const payload: Record<string, unknown> = {
    selectedPalette: s.selectedPalette,
    isCustomColorMode: s.isCustomColorMode,
    primaryColour: colours.primary,
    secondaryColour: colours.secondary,
    backgroundColour: colours.background,
    themeMode: s.themeMode,
    typography: s.selectedFontSize,
    chatSize: s.chatSize,
    chatPosition: s.chatPosition,
    animationStyle: s.animationStyle,
    borderRadius: s.borderRadius,
    shadowIntensity: s.shadowIntensity,
    botAvatar: s.botAvatar.trim(),
    welcomeMessage: s.welcomeMessage,
    placeholder: s.placeholder,
    customQuestions: cleanQuestions(s.customQuestions),
    enableTypingIndicator: s.enableTypingIndicator,
    enableQuickReplies: s.enableQuickReplies,
    enableHistory: s.enableHistory,
    enableFAQ: s.enableFAQ,
    enableHandover: s.enableHandover,
    enableLeadCapture: s.enableLeadCapture,
    enableSounds: s.enableSounds,
    showBranding: s.showBranding,
    leadCaptureMessage: s.leadCaptureMessage,
    typingDelay: s.typingDelay,
    messageHistoryLimit: s.messageHistoryLimit,
    maxMessageLength: s.maxMessageLength,
    companyName: s.companyName,
    headerTitle: s.headerTitle,
    headerSubtitle: s.headerSubtitle,
    supportEmail: s.supportEmail.trim(),
    customCSS: s.customCSS,
    popupMessage: s.popupMessage,
    autoOpenDelay: s.autoOpenDelay,
    handoverMessage: s.handoverMessage,
    businessHours: s.businessHours.trim(),
    responseTime: s.responseTime.trim(),
  };
  // The server refuses a blank name or prompt; leaving them out keeps the stored ones.
  if (s.botName.trim()) payload.name = s.botName.trim();
  if (s.systemPrompt.trim()) payload.systemPrompt = s.systemPrompt.trim();
  return payload;
}
