import { useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { useSnapshot } from 'valtio';
import { twoFactorChallengeFrom } from '@/features/auth/stores/two-factor-challenge';
import { isSignedIn, session } from '@/features/auth/stores/session';
import { activeBot, bots, selectBot } from '@/features/bots/stores/bots';

/** Where the guard came from, so sign-in can send the user back. */
export interface FromState {
  from?: { pathname: string; search?: string; hash?: string };
}

export function redirectTarget(state: unknown): string {
  const from = (state as FromState | null)?.from;
  if (!from?.pathname || from.pathname === '/login' || from.pathname === '/signup') return '/dashboard';
  return `${from.pathname}${from.search ?? ''}${from.hash ?? ''}`;
}

/** Signed-out users go to /login, remembering where they were headed. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const snap = useSnapshot(session);
  const location = useLocation();
  if (!isSignedIn(snap)) {
    const from = { pathname: location.pathname, search: location.search, hash: location.hash };
    return <Navigate to="/login" replace state={{ from } satisfies FromState} />;
  }
  return children;
}

/**
 * Screens that work on one bot need an active bot; without one, back to My Bots. A link that
 * names its bot (`?botId=`, e.g. View conversation on the Leads page) makes that bot active
 * first, if the user has it.
 */
export function RequireBot({ children }: { children: ReactNode }) {
  const snap = useSnapshot(bots);
  const [params] = useSearchParams();
  const wanted = params.get('botId');
  const switchTo = wanted && wanted !== snap.activeBotId && snap.bots.some((b) => b._id === wanted) ? wanted : null;
  useEffect(() => {
    if (switchTo) selectBot(switchTo);
  }, [switchTo]);
  if (switchTo) return null;
  if (!activeBot(snap)) return <Navigate to="/dashboard" replace />;
  return children;
}

/**
 * Login and sign-up are for signed-out users: one who arrives signed in goes on to /dashboard (or
 * where the guard sent them from). Decided on arrival only, so signing in on the page does not cut
 * short its own redirect (sign-up's pause, the way back to the origin). A Google or GitHub sign-in
 * that needs its two-factor code stays: a signed-in user confirming it is them (Settings) comes
 * back to /login#twoFactor=… too.
 */
export function RedirectIfSignedIn({ children }: { children: ReactNode }) {
  const location = useLocation();
  const [signedInOnArrival] = useState(() => isSignedIn(session) && !twoFactorChallengeFrom(location.hash));
  if (signedInOnArrival) return <Navigate to={redirectTarget(location.state)} replace />;
  return children;
}
