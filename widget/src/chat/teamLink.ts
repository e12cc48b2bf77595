// Spec 1's leads table opens a lead's conversation as /chat?id={botId}&session={sessionId}. That
// page is the visitor chat, which cannot show a team member someone else's conversation; the
// dashboard's conversation screen can. So a top-level visit with a session, from a browser signed
// in to the dashboard (same origin, its token in local storage), goes on to that screen, which
// checks the member's role on the bot. Everyone else gets the bot's visitor chat, as without it.

/** The dashboard's key for its sign-in token (dashboard/src/lib/api.ts, TOKEN_KEY). */
export const DASHBOARD_TOKEN_KEY = 'authToken';

/** Where a team member's lead link should land, or null to show the visitor chat. */
export function teamConversationUrl(search: string, signedIn: boolean, embedded: boolean): string | null {
  if (embedded || !signedIn) return null;
  const params = new URLSearchParams(search);
  const botId = params.get('id')?.trim();
  const session = params.get('session')?.trim();
  if (!botId || !session) return null;
  return `/botchat?session=${encodeURIComponent(session)}&botId=${encodeURIComponent(botId)}`;
}

/** Whether the dashboard is signed in in this browser (storage may be blocked: then it is not). */
export function dashboardSignedIn(): boolean {
  try {
    return Boolean(window.localStorage.getItem(DASHBOARD_TOKEN_KEY));
  } catch {
    return false;
  }
}
