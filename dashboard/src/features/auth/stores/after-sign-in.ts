// Where a Google or GitHub sign-in returns to. The provider round trip leaves the app, so the
// screen that started it (Settings, confirming an email change) is kept in session storage and
// /auth-success goes back there instead of to /dashboard.

const KEY = 'parley.afterSignIn';

/** Remembers `path` (an in-app path) for the sign-in about to start. */
export function returnAfterSignIn(path: string): void {
  try {
    sessionStorage.setItem(KEY, path);
  } catch {
    // Storage refused (private mode): the sign-in ends on /dashboard as usual.
  }
}

/** The remembered in-app path, once (it is forgotten as it is read); `fallback` otherwise. */
export function takeReturnPath(fallback: string): string {
  let path: string | null = null;
  try {
    path = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
  } catch {
    return fallback;
  }
  // Only a path inside the app: never another origin ('//host') a crafted value could name.
  return path && path.startsWith('/') && !path.startsWith('//') ? path : fallback;
}
