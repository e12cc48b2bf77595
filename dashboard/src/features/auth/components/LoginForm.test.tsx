import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render } from '../../../../test-utils/render';
import { me, mockFetch, user } from '../../../../test-utils/fetch';
import { session, signOut } from '../stores/session';
import { LoginForm } from './LoginForm';

const PROMPT = 'Enter the 6-digit code from your authenticator app';
const challenged = { body: { twoFactorRequired: true, challenge: 'ch-1', message: PROMPT } };
const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });

async function signIn(email = 'ada@example.com', password = 'secret-one') {
  const u = userEvent.setup();
  await u.type(screen.getByLabelText(/^Email/), email);
  await u.type(screen.getByLabelText(/^Password/), password);
  await u.click(screen.getByRole('button', { name: 'Sign in' }));
  return u;
}

describe('LoginForm', () => {
  beforeEach(() => signOut());

  it('signs in with the password alone when two-factor sign-in is off', async () => {
    const calls = mockFetch({ 'POST /api/auth/login': { body: { token: 'tok-1', user } }, 'GET /api/me': { body: me } });
    const onSignedIn = vi.fn();
    render(<LoginForm onSignedIn={onSignedIn} />);
    await signIn();
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith({ viaProvider: false }));
    expect(calls.map((c) => c.path)).toEqual(['/api/auth/login', '/api/me']);
    expect(localStorage.getItem('authToken')).toBe('tok-1');
  });

  it('asks for the code after the password, sends it with the challenge, then signs in', async () => {
    const calls = mockFetch({
      'POST /api/auth/login': challenged,
      'POST /api/auth/two-factor': { body: { token: 'tok-2fa', user: { ...user, twoFactorEnabled: true } } },
      'GET /api/me': { body: { ...me, user: { ...me.user, twoFactorEnabled: true } } },
    });
    const onSignedIn = vi.fn();
    const onCodeStep = vi.fn();
    render(<LoginForm onSignedIn={onSignedIn} onCodeStep={onCodeStep} />);
    await signIn();

    const code = await screen.findByLabelText(/^Authentication code/);
    expect(screen.getByText(PROMPT)).toBeInTheDocument();
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(screen.queryByLabelText(/^Password/)).toBeNull();
    expect(onCodeStep).toHaveBeenLastCalledWith(true);
    // No token until the code is right.
    expect(localStorage.getItem('authToken')).toBeNull();
    expect(onSignedIn).not.toHaveBeenCalled();

    const u = userEvent.setup();
    expect(screen.getByRole('button', { name: 'Verify' })).toBeDisabled();
    await u.type(code, '123456');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith({ viaProvider: false }));
    expect(calls.find((c) => c.path === '/api/auth/two-factor')).toMatchObject({
      method: 'POST',
      body: { challenge: 'ch-1', code: '123456' },
    });
    expect(localStorage.getItem('authToken')).toBe('tok-2fa');
    expect(session.loggedIn).toBe(true);
  });

  it('takes a recovery code as typed (letters and a dash)', async () => {
    const calls = mockFetch({
      'POST /api/auth/login': challenged,
      'POST /api/auth/two-factor': { body: { token: 'tok-r', user } },
      'GET /api/me': { body: me },
    });
    const onSignedIn = vi.fn();
    render(<LoginForm onSignedIn={onSignedIn} />);
    const u = await signIn();
    await u.type(await screen.findByLabelText(/^Authentication code/), 'abcde-fghjk');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalled());
    expect(calls.find((c) => c.path === '/api/auth/two-factor')?.body).toEqual({ challenge: 'ch-1', code: 'abcde-fghjk' });
  });

  it("shows the server's refusal of a wrong code and stays on the code step; Use a different account goes back", async () => {
    const wrong = "That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.";
    mockFetch({ 'POST /api/auth/login': challenged, 'POST /api/auth/two-factor': refusal(401, 'unauthorized', wrong) });
    const onSignedIn = vi.fn();
    const onCodeStep = vi.fn();
    render(<LoginForm onSignedIn={onSignedIn} onCodeStep={onCodeStep} />);
    const u = await signIn();
    await u.type(await screen.findByLabelText(/^Authentication code/), '000000');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(wrong);
    expect(screen.getByLabelText(/^Authentication code/)).toHaveValue('000000');
    expect(onSignedIn).not.toHaveBeenCalled();
    expect(localStorage.getItem('authToken')).toBeNull();

    await u.click(screen.getByRole('button', { name: 'Use a different account' }));
    expect(screen.getByLabelText(/^Email/)).toHaveValue('ada@example.com');
    expect(screen.getByLabelText(/^Password/)).toHaveValue('');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(onCodeStep).toHaveBeenLastCalledWith(false);
  });

  it('shows an expired sign-in as the server says it', async () => {
    const expired = 'This sign-in has expired. Please sign in again.';
    mockFetch({ 'POST /api/auth/two-factor': refusal(401, 'unauthorized', expired) });
    render(<LoginForm onSignedIn={vi.fn()} challenge="old-challenge" />);
    const u = userEvent.setup();
    await u.type(screen.getByLabelText(/^Authentication code/), '123456');
    await u.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(expired)).toBeInTheDocument();
  });
});
