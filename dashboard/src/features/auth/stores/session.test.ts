import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { me, mockFetch } from '../../../../test-utils/fetch';
import { bots } from '@/features/bots/stores/bots';
import { LOAD_TIMEOUT_MS, ROOT_KEY } from '@/lib/persist';
import { bootSession, session, signInWithToken, signOut } from './session';

const root = () => JSON.parse(localStorage.getItem(ROOT_KEY) ?? '{}');
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('session store persistence', () => {
  beforeEach(async () => {
    signOut();
    localStorage.clear();
    await bootSession(); // starts persisting; no token, so nothing to load
  });
  afterEach(() => vi.useRealTimers());

  it('persists the signed-in user under root and the token under authToken only', async () => {
    mockFetch({ 'GET /api/me': { body: me } });
    expect(await signInWithToken('tok-1')).toBe(true);
    await flush(); // valtio notifies subscribers asynchronously
    expect(localStorage.getItem('authToken')).toBe('tok-1');
    expect(root().session).toEqual({ user: me.user, platform: me.platform, loggedIn: true });
    expect(JSON.stringify(root())).not.toContain('tok-1');
  });

  it('restores the saved session on boot and refreshes it from /api/me', async () => {
    localStorage.setItem('authToken', 'tok-1');
    localStorage.setItem(
      ROOT_KEY,
      JSON.stringify({ session: { user: { ...me.user, name: 'Old name' }, platform: [], loggedIn: true } }),
    );
    const calls = mockFetch({ 'GET /api/me': { body: me } });
    await bootSession();
    expect(calls[0].headers.Authorization).toBe('Bearer tok-1');
    expect(session).toMatchObject({ token: 'tok-1', loggedIn: true });
    expect(session.user?.name).toBe('Ada');
    expect(session.platform[0].remainingCredits).toBe(70);
  });

  it('signs out on boot when the server rejects the token', async () => {
    localStorage.setItem('authToken', 'expired');
    localStorage.setItem(ROOT_KEY, JSON.stringify({ session: { user: me.user, platform: [], loggedIn: true } }));
    mockFetch({ 'GET /api/me': { status: 401, body: { error: { code: 'unauthorized', message: 'Sign in' } } } });
    await bootSession();
    await flush();
    expect(session.loggedIn).toBe(false);
    expect(session.user).toBeNull();
    expect(localStorage.getItem('authToken')).toBeNull();
    expect(root().session.loggedIn).toBe(false);
  });

  it('gives up waiting for the server after 5000 ms and keeps the saved session', async () => {
    vi.useFakeTimers();
    localStorage.setItem('authToken', 'tok-1');
    localStorage.setItem(ROOT_KEY, JSON.stringify({ session: { user: me.user, platform: [], loggedIn: true } }));
    mockFetch({ 'GET /api/me': () => new Promise<never>(() => {}) });
    let done = false;
    void bootSession().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(LOAD_TIMEOUT_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    expect(session.loggedIn).toBe(true);
    expect(session.user?.name).toBe('Ada');
  });

  it('sign-out clears the session and the per-user stores', async () => {
    mockFetch({ 'GET /api/me': { body: me } });
    await signInWithToken('tok-1');
    bots.bots = [{ _id: 'b1', id: 'b1', name: 'Helper', description: null, icon: null, status: 'active', lastActive: null }];
    bots.activeBotId = 'b1';
    signOut();
    await flush();
    expect(session).toMatchObject({ token: null, user: null, platform: [], loggedIn: false });
    expect(bots.bots).toEqual([]);
    expect(bots.activeBotId).toBeNull();
    expect(localStorage.getItem('authToken')).toBeNull();
    expect(root().session).toEqual({ user: null, platform: [], loggedIn: false });
  });
});
