import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test-utils/render';
import { me, mockFetch } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';

describe('links mailed by the server', () => {
  beforeEach(() => signOut());

  it('/verify-email posts the token and says the address is verified', async () => {
    const calls = mockFetch({
      'POST /api/auth/verify-email': { body: { message: 'Your email address is verified', emailChanged: false, user: { ...me.user, emailVerified: true } } },
    });
    renderApp('/verify-email?token=row.secret');
    expect(await screen.findByText('Your email address is verified')).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/auth/verify-email')?.body).toEqual({ token: 'row.secret' });
  });

  it('/verify-email shows the server refusal of a used link', async () => {
    mockFetch({
      'POST /api/auth/verify-email': { status: 400, body: { error: { code: 'bad_request', message: 'This link is invalid or was already used.' } } },
    });
    renderApp('/verify-email?token=used');
    expect(await screen.findByText('This link is invalid or was already used.')).toBeInTheDocument();
  });

  it('/reset-password checks the confirmation, then sends the new password with the token', async () => {
    const calls = mockFetch({ 'POST /api/auth/reset-password': { body: { message: 'Your password was reset. Please sign in with your new password.' } } });
    renderApp('/reset-password?token=t1');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText(/^New Password/), 'brand-new-1');
    await u.type(screen.getByLabelText(/^Confirm Password/), 'brand-new-2');
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reset password' })).toBeDisabled();
    await u.clear(screen.getByLabelText(/^Confirm Password/));
    await u.type(screen.getByLabelText(/^Confirm Password/), 'brand-new-1');
    await u.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByText('Your password was reset. Please sign in with your new password.')).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/auth/reset-password')?.body).toEqual({ token: 't1', password: 'brand-new-1', confirmPassword: 'brand-new-1' });
  });

  it('sign-in offers Forgot password? and shows a refused Google sign-in', async () => {
    const calls = mockFetch({ 'POST /api/auth/forgot-password': { body: { message: 'If an account exists for this email, we sent a link.' } } });
    const { router } = renderApp('/login?error=Its%20email%20address%20is%20not%20verified');
    expect(await screen.findByText('Its email address is not verified')).toBeInTheDocument();
    const u = userEvent.setup();
    await u.click(screen.getByRole('link', { name: 'Forgot password?' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/forgot-password'));
    // The screen is a lazy chunk: sign-in stays on screen until it has arrived.
    await screen.findByRole('button', { name: 'Send reset link' });
    await u.type(screen.getByLabelText(/^Email/), 'ada@example.com');
    await u.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText('If an account exists for this email, we sent a link.')).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/auth/forgot-password')?.body).toEqual({ email: 'ada@example.com' });
  });

  it('an unverified account sees the banner and can ask for the link again', async () => {
    localStorage.setItem('authToken', 'tok');
    Object.assign(session, { token: 'tok', user: { ...me.user, emailVerified: false }, platform: me.platform, loggedIn: true });
    const calls = mockFetch({
      'GET /api/me': { body: { ...me, user: { ...me.user, emailVerified: false } } },
      'GET /api/bots': { body: { bots: [] } },
      'GET /api/invitations': { body: { invitations: [], emailUnverified: true } },
      'POST /api/auth/resend-verification': { body: { message: 'We sent a new verification link to ada@example.com' } },
    });
    renderApp('/dashboard');
    expect(await screen.findByText('Verify your email address')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Resend' }));
    expect(await screen.findByText('We sent a new verification link to ada@example.com')).toBeInTheDocument();
    expect(calls.some((c) => c.path === '/api/auth/resend-verification')).toBe(true);
  });
});
