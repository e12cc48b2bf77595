import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test-utils/render';
import { me, mockFetch } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';

// The test setup's matchMedia matches nothing, so the shell is in its narrow (< 1024 px) form.
describe('Shell under 1024 px', () => {
  beforeEach(() => {
    signOut();
    localStorage.setItem('authToken', 'tok');
    Object.assign(session, { token: 'tok', user: me.user, platform: me.platform, loggedIn: true });
    mockFetch({ 'GET /api/bots': { body: { bots: [] } }, 'GET /api/invitations': { body: { invitations: [] } } });
  });

  it('opens the navigation drawer with the toggle and closes it after a link click', async () => {
    const { router } = renderApp('/dashboard');
    const u = userEvent.setup();
    expect(screen.queryByRole('link', { name: 'Billing' })).toBeNull();
    await u.click(await screen.findByRole('button', { name: 'Toggle navigation' }));
    await u.click(await screen.findByRole('link', { name: 'Billing' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/billing'));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Billing' })).toBeNull());
  });

  it('Sign Out clears the session and returns to /login, remembering where the user was', async () => {
    const { router } = renderApp('/dashboard?q=1');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Toggle navigation' }));
    await u.click(await screen.findByRole('button', { name: 'Sign Out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(session.loggedIn).toBe(false);
    expect(localStorage.getItem('authToken')).toBeNull();
    // Signing in again comes back to the same screen.
    expect(router.state.location.state).toMatchObject({ from: { pathname: '/dashboard', search: '?q=1' } });
  });
});
