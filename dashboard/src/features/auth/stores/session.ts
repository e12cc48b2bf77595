// The signed-in user: token (kept under `authToken`), profile and plan usage from /api/me.
import { proxy } from 'valtio';
import { ApiError, getToken, setToken } from '@/lib/api';
import { LOAD_TIMEOUT_MS, persistSlice, withTimeout } from '@/lib/persist';
import { runSignOutResets } from '@/lib/sign-out';
import { authApi, type Platform, type User } from '../api/auth';

export interface SessionState {
  token: string | null;
  user: User | null;
  platform: Platform[];
  /** False while user data loads or after it failed; true once /api/me answered. */
  loggedIn: boolean;
}

export const PERSISTED_SESSION_FIELDS = ['user', 'platform', 'loggedIn'] as const;

export const session = proxy<SessionState>({
  token: null,
  user: null,
  platform: [],
  loggedIn: false,
});

export function isSignedIn(s: Pick<SessionState, 'loggedIn' | 'token'>): boolean {
  return s.loggedIn && !!s.token;
}

/**
 * Loads /api/me into the session. A rejected token signs out. Any other failure leaves the user
 * signed out too, unless `keepOnError` (start-up with a saved session: offline is not signed out).
 */
export async function loadMe({ keepOnError = false } = {}): Promise<boolean> {
  try {
    const me = await authApi.me();
    session.user = me.user;
    session.platform = me.platform ?? [];
    session.loggedIn = true;
    return true;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) signOut();
    else if (!keepOnError) session.loggedIn = false;
    return false;
  }
}

/** Stores a fresh token (sign-in, sign-up, OAuth) and loads the user it belongs to. */
export async function signInWithToken(token: string): Promise<boolean> {
  setToken(token);
  session.token = token;
  session.loggedIn = false;
  return loadMe();
}

/** Applies a saved profile change (name, email, avatar) so the sidebar's profile card shows it. */
export function updateUser(patch: Partial<User>): void {
  if (session.user) session.user = { ...session.user, ...patch };
}

/**
 * 'Sign Out': tells the server this session is over (its token is refused from then on, even if
 * a copy of it lives somewhere), then signs out here. Leaving never waits on the server: the
 * request is sent with `keepalive`, so it completes while the page moves to sign-in.
 */
export function signOutOfSession(): void {
  const token = session.token ?? getToken();
  if (token) {
    void fetch('/api/auth/logout', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      keepalive: true,
    }).catch(() => {
      // Unreachable: the token still expires on its own; nothing else to do from here.
    });
  }
  signOut();
}

/** Forgets the session here (also when the server refused the token). */
export function signOut(): void {
  setToken(null);
  session.token = null;
  session.user = null;
  session.platform = [];
  session.loggedIn = false;
  runSignOutResets();
}

let unpersist: (() => void) | null = null;

/**
 * Restores the persisted session and, with a token, refreshes it from the server. Gives up waiting
 * after LOAD_TIMEOUT_MS so a slow server never leaves the app on its loader.
 */
export async function bootSession(timeoutMs = LOAD_TIMEOUT_MS): Promise<void> {
  unpersist?.();
  unpersist = persistSlice('session', session, PERSISTED_SESSION_FIELDS);
  session.token = getToken();
  if (!session.token) {
    session.loggedIn = false;
    return;
  }
  await withTimeout(loadMe({ keepOnError: true }), timeoutMs, false);
}
