import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test-utils/render';
import { bot, me, mockFetch } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';
import { bots } from '@/features/bots/stores/bots';

function signedIn() {
  localStorage.setItem('authToken', 'tok-1');
  session.token = 'tok-1';
  session.user = me.user;
  session.platform = me.platform;
  session.loggedIn = true;
}

describe('route guard', () => {
  beforeEach(() => {
    signOut();
    mockFetch({
      'GET /api/me': { body: me },
      'GET /api/bots': { body: { bots: [bot('b1', 'Helper')] } },
      'GET /api/invitations': { body: { invitations: [] } },
      'POST /api/auth/login': { body: { token: 'tok-1', user: me.user } },
    });
  });

  it('sends a signed-out user to /login, then back to where they were going after sign-in', async () => {
    const { router } = renderApp('/billing?tab=plans');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.state).toMatchObject({ from: { pathname: '/billing', search: '?tab=plans' } });

    const u = userEvent.setup();
    await u.type(await screen.findByLabelText(/^Email/), 'ada@example.com');
    await u.type(screen.getByLabelText(/^Password/), 'secret-one');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/billing'));
    expect(router.state.location.search).toBe('?tab=plans');
    expect(localStorage.getItem('authToken')).toBe('tok-1');
  });

  it('needs a token as well as the logged-in flag', async () => {
    session.loggedIn = true; // a stale flag without a token is not a session
    const { router } = renderApp('/dashboard');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('sends a bot screen without an active bot to /dashboard', async () => {
    signedIn();
    const { router } = renderApp('/stats');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(await screen.findByText('My AI Assistants')).toBeInTheDocument();
  });

  it('opens a bot screen when a bot is active', async () => {
    signedIn();
    bots.bots = [bot('b1', 'Helper') as never];
    bots.activeBotId = 'b1';
    const { router } = renderApp('/stats');
    expect(await screen.findByRole('heading', { name: 'Analytics' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/stats');
  });

  it('sends a signed-in user away from /login to /dashboard', async () => {
    signedIn();
    const { router } = renderApp('/login');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('/auth-success takes the token from the fragment, loads /api/me and goes to /dashboard', async () => {
    const { router } = renderApp('/auth-success#token=oauth-frag');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(localStorage.getItem('authToken')).toBe('oauth-frag');
    expect(router.state.location.hash).toBe('');
  });

  it('/auth-success still reads ?token=, stores it, loads /api/me and goes to /dashboard', async () => {
    const { router } = renderApp('/auth-success?token=oauth-tok');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(localStorage.getItem('authToken')).toBe('oauth-tok');
    expect(session).toMatchObject({ token: 'oauth-tok', loggedIn: true });
  });

  it('/auth-success returns to the screen that started the sign-in, once, and only inside the app', async () => {
    sessionStorage.setItem('parley.afterSignIn', '/settings');
    const { router, unmount } = renderApp('/auth-success?token=oauth-tok');
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    expect(sessionStorage.getItem('parley.afterSignIn')).toBeNull();
    unmount();
    signOut();
    sessionStorage.setItem('parley.afterSignIn', '//evil.example/x');
    const second = renderApp('/auth-success?token=oauth-tok');
    await waitFor(() => expect(second.router.state.location.pathname).toBe('/dashboard'));
  });
});

describe('sign-up redirect', () => {
  beforeEach(() => {
    signOut();
    mockFetch({
      'POST /api/auth/signup': { status: 201, body: { token: 'tok-2', user: me.user } },
      'GET /api/me': { body: me },
      'GET /api/bots': { body: { bots: [] } },
      'GET /api/invitations': { body: { invitations: [] } },
    });
  });

  it('stays on the confirmation for about a second, then goes to /dashboard', async () => {
    const { router } = renderApp('/signup');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText(/^Email/), 'ada@example.com');
    await u.type(screen.getByLabelText(/^Password/), 'secret-one');
    await u.type(screen.getByLabelText(/^Confirm Password/), 'secret-one');
    const sent = Date.now();
    await u.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText(/Account created/)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signup');
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'), { timeout: 3000 });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(900);
  });
});
