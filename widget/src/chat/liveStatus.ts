// Keeps the bot's active/inactive status current while the chat page stays open. The owner can
// switch the bot off or on in the dashboard at any moment; a visitor's open page must follow
// without a reload. Switched off, the server refuses the visitor's next message: that refusal
// (`nudge`) makes the page check the status and show the offline state. Offline, the page checks
// every OFFLINE_RECHECK_MS, so switching the bot back on restores the chat by itself. Both ways it
// checks again when the page becomes visible. An active page does not poll: a page open on every
// visitor's screen must cost the server nothing until the visitor acts.
import { useEffect, useState } from 'react';

export type BotStatus = 'active' | 'inactive';

export const OFFLINE_RECHECK_MS = 10_000;

/** The bot's status from its public theme; null when it cannot be read (then nothing changes). */
export async function fetchStatus(botId: string, signal?: AbortSignal): Promise<BotStatus | null> {
  try {
    const res = await fetch(`/api/bots/${encodeURIComponent(botId)}/theme`, { headers: { Accept: 'application/json' }, signal });
    if (!res.ok) return null;
    const body = (await res.json()) as { status?: unknown };
    return body.status === 'inactive' ? 'inactive' : body.status === 'active' ? 'active' : null;
  } catch {
    return null;
  }
}

/**
 * The status to show: `loaded` (from the theme the page opened with) until a check says
 * otherwise. Each change of `nudge` (a refused message) checks once.
 */
export function useBotStatus(botId: string | null, loaded: BotStatus | null, nudge: number): BotStatus | null {
  const [checked, setChecked] = useState<BotStatus | null>(null);
  useEffect(() => setChecked(null), [botId, loaded]);
  const status = checked ?? loaded;

  useEffect(() => {
    if (!botId || !nudge) return;
    const ctrl = new AbortController();
    void fetchStatus(botId, ctrl.signal).then((s) => s && !ctrl.signal.aborted && setChecked(s));
    return () => ctrl.abort();
  }, [botId, nudge]);

  useEffect(() => {
    if (!botId || !status) return;
    let ctrl: AbortController | null = null;
    const check = () => {
      ctrl?.abort();
      const mine = new AbortController();
      ctrl = mine;
      void fetchStatus(botId, mine.signal).then((s) => s && !mine.signal.aborted && setChecked(s));
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') check();
    };
    document.addEventListener('visibilitychange', onVisible);
    const timer = status === 'inactive' ? setInterval(check, OFFLINE_RECHECK_MS) : null;
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      if (timer) clearInterval(timer);
      ctrl?.abort();
    };
  }, [botId, status]);

  return status;
}
