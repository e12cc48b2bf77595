// How the settings look on the test chat: sizes, shadows, and readable colours.
import { effectiveColours, type CustomizeSettings } from './model';

export const CHAT_DIMENSIONS: Record<string, { width: number | string; height: number }> = {
  compact: { width: 320, height: 480 },
  medium: { width: 380, height: 560 },
  large: { width: 440, height: 620 },
  full: { width: '100%', height: 640 },
};

export const SHADOW_CSS: Record<string, string> = {
  none: 'none',
  light: '0 1px 4px rgba(0,0,0,0.12)',
  medium: '0 6px 18px rgba(0,0,0,0.16)',
  heavy: '0 14px 36px rgba(0,0,0,0.32)',
};

function rgb(hex: string): [number, number, number] | null {
  let h = hex.trim().replace(/^#/, '');
  if (h.length === 3) h = h.split('').map((c) => c + c).join('');
  if (h.length === 8) h = h.slice(0, 6);
  if (!/^[0-9a-fA-F]{6}$/.test(h)) return null;
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

const hex = (c: [number, number, number]) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

/** `a` mixed into `b` by `t` (0..1); invalid colours fall back to `b`. */
export function mix(a: string, b: string, t: number): string {
  const x = rgb(a);
  const y = rgb(b);
  if (!x || !y) return b;
  return hex([x[0] * t + y[0] * (1 - t), x[1] * t + y[1] * (1 - t), x[2] * t + y[2] * (1 - t)]);
}

/** Black or white, whichever reads on `bg`. */
export function readableOn(bg: string): string {
  const c = rgb(bg);
  if (!c) return '#1c1d1d';
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 ? '#1c1d1d' : '#ffffff';
}

export function chatLook(s: CustomizeSettings) {
  const colours = effectiveColours(s);
  const dark = s.themeMode === 'dark';
  const background = dark ? '#1a1b1e' : colours.background;
  const botBubble = dark ? '#2c2e33' : mix(colours.secondary, '#ffffff', 0.08);
  return {
    ...colours,
    background,
    text: readableOn(background),
    botBubble,
    botText: readableOn(botBubble),
    userText: readableOn(colours.primary),
    size: CHAT_DIMENSIONS[s.chatSize] ?? CHAT_DIMENSIONS.medium!,
    shadow: SHADOW_CSS[s.shadowIntensity] ?? SHADOW_CSS.medium!,
  };
}
