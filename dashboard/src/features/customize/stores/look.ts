// The editor's settings as the shared chat look (widget/src/shared/look.ts), which the live chat
// draws from too; only the preview's size for 'full' is the preview's own.
import { CHAT_SIZES, chatLook as sharedLook, type LookSettings } from '@parley/shared/look';
import { effectiveColours, type CustomizeSettings } from './model';

/** Preview sizes: the live window's, and 'full' as wide as the preview column. */
export const CHAT_DIMENSIONS: Record<string, { width: number | string; height: number }> = {
  ...CHAT_SIZES,
  full: { width: '100%', height: 640 },
};

/** The editor's names mapped to the public theme's. */
export function lookSettings(s: CustomizeSettings): LookSettings {
  const colours = effectiveColours(s);
  return {
    primaryColour: colours.primary,
    secondaryColour: colours.secondary,
    backgroundColour: colours.background,
    themeMode: s.themeMode,
    typography: s.selectedFontSize,
    borderRadius: s.borderRadius,
    shadowIntensity: s.shadowIntensity,
    animationStyle: s.animationStyle,
  };
}

export function chatLook(s: CustomizeSettings) {
  return { ...sharedLook(lookSettings(s)), size: CHAT_DIMENSIONS[s.chatSize] ?? CHAT_DIMENSIONS.medium! };
}
