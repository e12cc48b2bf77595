import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { me, mockFetch } from '../../../../test-utils/fetch';
import { session } from '@/features/auth/stores/session';
import { setToken } from '@/lib/api';
import { EMAIL_CHANGE_NEEDS_PASSWORD, IMAGES_ONLY, PASSWORDS_DO_NOT_MATCH, isImageFile, passwordErrors } from '../stores/account';
import { AccountSettings } from './AccountSettings';

const prefs = { emailNotifications: true, pushNotifications: false, weeklyReports: true, securityAlerts: true };

function signedIn() {
  Object.assign(session, { token: 'tok', user: { ...me.user, hasPassword: true }, platform: me.platform, loggedIn: true });
}

describe('settings rules', () => {
  it('accepts image files only for the avatar', () => {
    expect(isImageFile(new File(['x'], 'me.png', { type: 'image/png' }))).toBe(true);
    expect(isImageFile(new File(['x'], 'me.pdf', { type: 'application/pdf' }))).toBe(false);
    expect(isImageFile(new File(['x'], 'notes.txt', { type: 'text/plain' }))).toBe(false);
    expect(isImageFile({ name: 'me.jpeg', type: '' })).toBe(true);
  });

  it('says Passwords do not match', () => {
    const e = passwordErrors({ currentPassword: 'old-secret', newPassword: 'new-secret', confirmPassword: 'new-secreX' }, true);
    expect(e.confirmPassword).toBe(PASSWORDS_DO_NOT_MATCH);
    expect(passwordErrors({ currentPassword: 'a', newPassword: 'new-secret', confirmPassword: 'new-secret' }, true)).toEqual({});
    expect(passwordErrors({ currentPassword: '', newPassword: 'short', confirmPassword: 'short' }, true)).toEqual({
      currentPassword: 'Current password is required',
      newPassword: 'Password must be at least 8 characters',
    });
  });
});

describe('Settings screen', () => {
  beforeEach(signedIn);

  it('saves the profile and puts the new name into the session (the sidebar reads it)', async () => {
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'PUT /api/me': ({ body }) => ({ body: { user: { ...me.user, ...(body as object) } } }),
    });
    render(<AccountSettings />);
    const u = userEvent.setup();
    const name = screen.getByLabelText('Full Name');
    await waitFor(() => expect(name).toHaveValue('Ada'));
    await u.clear(name);
    await u.type(name, 'Ada Lovelace');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Your profile was saved');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(session.user?.name).toBe('Ada Lovelace');
  });

  it('refuses a non-image avatar without uploading', async () => {
    const calls = mockFetch({ 'GET /api/me/notifications': { body: prefs } });
    const { container } = render(<AccountSettings />);
    const u = userEvent.setup({ applyAccept: false });
    const input = container.querySelector('input[type=file]') as HTMLInputElement;
    await u.upload(input, new File(['%PDF'], 'doc.pdf', { type: 'application/pdf' }));
    expect((await screen.findAllByText(IMAGES_ONLY)).length).toBeGreaterThan(0);
    expect(calls.some((c) => c.path === '/api/me/avatar')).toBe(false);
  });

  it('uploads an image avatar and shows it in the session', async () => {
    mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'POST /api/me/avatar': { body: { profilePicture: '/uploads/public/a.png' } },
    });
    const { container } = render(<AccountSettings />);
    const u = userEvent.setup();
    await u.upload(container.querySelector('input[type=file]') as HTMLInputElement, new File(['png'], 'me.png', { type: 'image/png' }));
    await waitFor(() => expect(session.user?.profilePicture).toBe('/uploads/public/a.png'));
  });

  it('shows Passwords do not match and sends nothing until they match', async () => {
    const calls = mockFetch({ 'GET /api/me/notifications': { body: prefs }, 'PUT /api/me/password': { status: 204 } });
    render(<AccountSettings />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Security' }));
    await u.type(screen.getByLabelText('Current Password'), 'password123');
    await u.type(screen.getByLabelText('New Password'), 'new-secret-1');
    await u.type(screen.getByLabelText('Confirm Password'), 'new-secret-2');
    expect(screen.getByText(PASSWORDS_DO_NOT_MATCH)).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(calls.some((c) => c.path === '/api/me/password')).toBe(false);
    await u.clear(screen.getByLabelText('Confirm Password'));
    await u.type(screen.getByLabelText('Confirm Password'), 'new-secret-1');
    expect(screen.queryByText(PASSWORDS_DO_NOT_MATCH)).toBeNull();
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Use your new password next time you sign in');
    expect(calls.find((c) => c.path === '/api/me/password')?.body).toEqual({
      currentPassword: 'password123',
      newPassword: 'new-secret-1',
      confirmPassword: 'new-secret-1',
    });
    expect(screen.getByLabelText('Current Password')).toHaveValue('');
  });

  it('toggles the current password visibility, and offers two-factor sign-in', async () => {
    mockFetch({ 'GET /api/me/notifications': { body: prefs }, 'GET /api/me/two-factor': { body: { enabled: false, recoveryCodesLeft: 0 } } });
    render(<AccountSettings />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Security' }));
    const current = screen.getByLabelText('Current Password');
    expect(current).toHaveAttribute('type', 'password');
    await u.click(screen.getByRole('button', { name: 'Show password' }));
    expect(current).toHaveAttribute('type', 'text');
    await u.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(current).toHaveAttribute('type', 'password');
    const twoFactor = screen.getByRole('switch', { name: /Two-Factor Authentication/ });
    expect(twoFactor).toBeEnabled();
    expect(twoFactor).not.toBeChecked();
    expect(screen.getByText('Add a code from an authenticator app to your sign-in')).toBeInTheDocument();
  });

  it('signs out everywhere on the server, then here', async () => {
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'POST /api/auth/logout-everywhere': { body: { message: 'Every session of your account is signed out' } },
    });
    setToken('tok');
    render(<AccountSettings />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Security' }));
    await u.click(screen.getByRole('button', { name: 'End all sessions' }));
    await waitFor(() => expect(session.token).toBeNull());
    const call = calls.find((c) => c.path === '/api/auth/logout-everywhere');
    expect(call?.method).toBe('POST');
    expect(call?.headers.Authorization).toBe('Bearer tok');
  });

  it('signs out here when the server says this session had already ended', async () => {
    mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'POST /api/auth/logout-everywhere': { status: 401, body: { error: { code: 'unauthorized', message: 'Your session has expired, please sign in again' } } },
    });
    render(<AccountSettings />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Security' }));
    await u.click(screen.getByRole('button', { name: 'End all sessions' }));
    await waitFor(() => expect(session.token).toBeNull());
  });

  it('stays signed in when signing out everywhere fails, and says so', async () => {
    mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'POST /api/auth/logout-everywhere': { status: 503, body: { error: { code: 'unavailable', message: 'The database is busy' } } },
    });
    render(<AccountSettings />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Security' }));
    await u.click(screen.getByRole('button', { name: 'End all sessions' }));
    await screen.findByText('The database is busy');
    expect(session.token).toBe('tok');
  });

  it('loads and saves notification preferences', async () => {
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'PUT /api/me/notifications': ({ body }) => ({ body }),
    });
    render(<AccountSettings />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Notifications' }));
    const weekly = screen.getByRole('switch', { name: /Weekly Reports/ });
    await waitFor(() => expect(weekly).toBeEnabled());
    expect(weekly).toBeChecked();
    await u.click(weekly);
    await u.click(screen.getByRole('switch', { name: /Push Notifications/ }));
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Your notification preferences were saved');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ ...prefs, weeklyReports: false, pushNotifications: true });
  });

  it('a new email needs the current password, is sent with it, and waits for the link', async () => {
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'PUT /api/me': {
        body: {
          user: { ...me.user, hasPassword: true },
          pendingEmail: 'ada@new.example',
          message: 'We sent a confirmation link to ada@new.example. Your email changes when you follow it.',
        },
      },
    });
    render(<AccountSettings />);
    const u = userEvent.setup();
    const email = screen.getByLabelText(/^Email Address/);
    await waitFor(() => expect(email).toHaveValue('ada@example.com'));
    const profile = within(email.closest('form') as HTMLElement);
    expect(profile.queryByLabelText(/^Current Password/)).toBeNull();
    await u.clear(email);
    await u.type(email, 'ada@new.example');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText(EMAIL_CHANGE_NEEDS_PASSWORD);
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);

    await u.type(profile.getByLabelText(/^Current Password/), 'old-secret');
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText(/We sent a confirmation link to ada@new.example/);
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Ada', email: 'ada@new.example', currentPassword: 'old-secret' });
    expect(screen.getByTestId('pending-email')).toHaveTextContent('ada@new.example');
    expect(email).toHaveValue('ada@example.com');
  });

  it('an account without a password confirms through its provider, then by the link', async () => {
    Object.assign(session, { user: { ...me.user, hasPassword: false } });
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'PUT /api/me': { body: { user: { ...me.user, hasPassword: false }, pendingEmail: 'ada@new.example', message: 'Link on its way to ada@new.example.' } },
    });
    render(<AccountSettings />);
    const u = userEvent.setup();
    const email = screen.getByLabelText(/^Email Address/);
    await waitFor(() => expect(email).toHaveValue('ada@example.com'));
    await u.clear(email);
    await u.type(email, 'ada@new.example');
    expect(screen.getByTestId('oauth-email-note')).toHaveTextContent(/signing in again with Google or GitHub/);
    expect(screen.getByRole('link', { name: 'Confirm with Google' })).toHaveAttribute('href', '/api/auth/google');
    // jsdom cannot leave the page: stop the link's navigation, keep its click handler.
    document.addEventListener('click', (e) => e.preventDefault(), { once: true });
    await u.click(screen.getByRole('link', { name: 'Confirm with GitHub' }));
    expect(sessionStorage.getItem('parley.afterSignIn')).toBe('/settings');
    sessionStorage.clear();
    await u.click(screen.getByRole('button', { name: 'Save Changes' }));
    await screen.findByText('Link on its way to ada@new.example.');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Ada', email: 'ada@new.example' });
  });
});
