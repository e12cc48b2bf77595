import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test-utils/render';
import { me, mockFetch, user } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';
import { twoFactorChallengeFrom } from '@/features/auth/stores/two-factor-challenge';

const PROMPT = 'Enter the 6-digit code from your authenticator app';

function handlers() {
  return mockFetch({
    'POST /api/auth/login': { body: { twoFactorRequired: true, challenge: 'ch-pw', message: PROMPT } },
    'POST /api/auth/two-factor': ({ body }) => ({ body: { token: `tok-${(body as { challenge: string }).challenge}`, user } }),
    'GET /api/me': { body: me },
    'GET /api/bots': { body: { bots: [] } },
    'GET /api/invitations': { body: { invitations: [] } },
  });
}

describe('/login with two-factor sign-in', () => {
  beforeEach(() => {
    signOut();
    sessionStorage.clear();
  });

  it('reads the challenge of the fragment', () => {
    expect(twoFactorChallengeFrom('#twoFactor=abc.def')).toBe('abc.def');
    expect(twoFactorChallengeFrom('#token=x')).toBeNull();
    expect(twoFactorChallengeFrom('#twoFactor=')).toBeNull();
    expect(twoFactorChallengeFrom('')).toBeNull();
  });

  it('password, then the code step without the other ways in, then /dashboard', async () => {
    const calls = handlers();
    const { router } = renderApp('/login');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText(/^Email/), 'ada@example.com');
    await u.type(screen.getByLabelText(/^Password/), 'secret-one');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    await u.type(await screen.findByLabelText(/^Authentication code/), '654321');
    expect(screen.getByText('Two-factor authentication')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Continue with Google/ })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Forgot password?' })).toBeNull();
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(calls.find((c) => c.path === '/api/auth/two-factor')?.body).toEqual({ challenge: 'ch-pw', code: '654321' });
    expect(localStorage.getItem('authToken')).toBe('tok-ch-pw');
  });

  it('a Google or GitHub sign-in lands on the code step; the fragment leaves the address at once', async () => {
    const calls = handlers();
    const { router } = renderApp('/login#twoFactor=ch-oauth');
    const code = await screen.findByLabelText(/^Authentication code/);
    expect(screen.getByText(PROMPT)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.hash).toBe(''));
    expect(router.state.location.pathname).toBe('/login');
    const u = userEvent.setup();
    await u.type(code, '111222');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(calls.find((c) => c.path === '/api/auth/two-factor')?.body).toEqual({ challenge: 'ch-oauth', code: '111222' });
    expect(calls.some((c) => c.path === '/api/auth/login')).toBe(false);
  });

  it('a signed-in user confirming it is them from Settings stays for the code, then goes back to Settings', async () => {
    handlers();
    localStorage.setItem('authToken', 'tok-old');
    Object.assign(session, { token: 'tok-old', user: me.user, platform: me.platform, loggedIn: true });
    sessionStorage.setItem('parley.afterSignIn', '/settings');
    const { router } = renderApp('/login#twoFactor=ch-confirm');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText(/^Authentication code/), '333444');
    expect(router.state.location.pathname).toBe('/login');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    expect(localStorage.getItem('authToken')).toBe('tok-ch-confirm');
  });
});
