// The bot's look for the visitor chat, from GET /api/bots/{id}/theme, with the spec's defaults for
// anything missing (and for everything when the call fails).

export interface ChatTheme {
  name: string;
  primaryColour: string;
  secondaryColour: string;
  backgroundColour: string;
  themeMode: 'light' | 'dark';
  icon: string | null;
  userIcon: string | null;
  typography: string;
  customQuestions: string[];
  welcomeMessage: string;
  enableHandover: boolean;
}

export const DEFAULT_THEME: ChatTheme = {
  name: 'Chat Support',
  primaryColour: '#3B82F6',
  secondaryColour: '#1c1d1d',
  backgroundColour: '#f0f9ff',
  themeMode: 'light',
  icon: null,
  userIcon: null,
  typography: '16px',
  customQuestions: [],
  welcomeMessage: 'Hello, how can I help you today?',
  enableHandover: true,
};

const str = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v : fallback);

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
    userIcon: typeof t.userIcon === 'string' && t.userIcon ? t.userIcon : null,
    typography: str(t.typography, DEFAULT_THEME.typography),
    customQuestions: Array.isArray(t.customQuestions)
      ? t.customQuestions.filter((q): q is string => typeof q === 'string' && q.trim() !== '').slice(0, 5)
      : [],
    welcomeMessage: str(t.welcomeMessage, DEFAULT_THEME.welcomeMessage),
    enableHandover: typeof t.enableHandover === 'boolean' ? t.enableHandover : true,
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
