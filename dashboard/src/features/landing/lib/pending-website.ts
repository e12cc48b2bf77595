// The website a newcomer typed on the landing page, carried through sign-up (email, or a
// Google/GitHub round trip that leaves the app) to the create wizard, which crawls it. Kept in
// session storage: it lasts for this tab's visit only.

const KEY = 'parley.pendingWebsite';

export function rememberWebsite(url: string): void {
  try {
    sessionStorage.setItem(KEY, url);
  } catch {
    // Storage refused (private mode): the URL still travels in the link's query.
  }
}

/** The remembered website, once (it is forgotten as it is read). */
export function takeWebsite(): string | null {
  try {
    const url = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    return url;
  } catch {
    return null;
  }
}

/** Where the wizard opens with `url` filled in. */
export function wizardPath(url: string): string {
  return `/dashboard?create=1&website=${encodeURIComponent(url)}`;
}
