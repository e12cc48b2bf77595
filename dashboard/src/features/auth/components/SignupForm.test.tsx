import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render } from '../../../../test-utils/render';
import { me, mockFetch, user } from '../../../../test-utils/fetch';
import { session, signOut } from '../stores/session';
import { SignupForm } from './SignupForm';

async function fill(email: string, password: string, confirm: string) {
  const u = userEvent.setup();
  await u.type(screen.getByLabelText(/^Email/), email);
  await u.type(screen.getByLabelText(/^Password/), password);
  await u.type(screen.getByLabelText(/^Confirm Password/), confirm);
  return u;
}

describe('SignupForm', () => {
  beforeEach(() => signOut());

  it('shows "Passwords do not match" and sends nothing when the passwords differ', async () => {
    const calls = mockFetch({});
    const onSignedUp = vi.fn();
    render(<SignupForm onSignedUp={onSignedUp} />);
    const u = await fill('ada@example.com', 'secret-one', 'secret-two');
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Create account' }));
    expect(calls).toHaveLength(0);
    expect(onSignedUp).not.toHaveBeenCalled();
  });

  it('refuses a password shorter than the server allows before sending it', async () => {
    const calls = mockFetch({});
    render(<SignupForm onSignedUp={vi.fn()} />);
    const u = await fill('ada@example.com', 'short', 'short');
    await u.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('requires the email and both passwords', async () => {
    const calls = mockFetch({});
    render(<SignupForm onSignedUp={vi.fn()} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('signs up, stores the token under authToken and loads the user', async () => {
    const calls = mockFetch({
      'POST /api/auth/signup': { status: 201, body: { token: 'tok-1', user } },
      'GET /api/me': { body: me },
    });
    const onSignedUp = vi.fn();
    render(<SignupForm onSignedUp={onSignedUp} />);
    const u = await fill('ada@example.com', 'secret-one', 'secret-one');
    await u.type(screen.getByLabelText(/^Name/), 'Ada');
    await u.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() => expect(onSignedUp).toHaveBeenCalled());
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/api/auth/signup',
      body: { email: 'ada@example.com', password: 'secret-one', confirmPassword: 'secret-one', name: 'Ada' },
    });
    expect(calls[1].headers.Authorization).toBe('Bearer tok-1');
    expect(localStorage.getItem('authToken')).toBe('tok-1');
    expect(session.loggedIn).toBe(true);
    expect(session.user?.name).toBe('Ada');
  });

  it("shows the server's message when sign-up is refused", async () => {
    mockFetch({
      'POST /api/auth/signup': {
        status: 409,
        body: { error: { code: 'email_taken', message: 'An account with this email already exists' } },
      },
    });
    render(<SignupForm onSignedUp={vi.fn()} />);
    const u = await fill('ada@example.com', 'secret-one', 'secret-one');
    await u.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('An account with this email already exists')).toBeInTheDocument();
    expect(localStorage.getItem('authToken')).toBeNull();
  });
});
