import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { me, mockFetch } from '../../../../test-utils/fetch';
import { session } from '@/features/auth/stores/session';
import { twoFactor } from '../stores/twoFactor';
import { AccountSettings } from './AccountSettings';
import { groupedKey, svgDataUrl } from './TwoFactorSetting';

const prefs = { emailNotifications: true, pushNotifications: false, weeklyReports: true, securityAlerts: true };
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="10" height="10"/></svg>';
const CODES = Array.from({ length: 10 }, (_, i) => `abcd${i}-fghj${i}`);
const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });

function signedIn(extra: Record<string, unknown> = {}) {
  Object.assign(session, {
    token: 'tok',
    user: { ...me.user, hasPassword: true, twoFactorEnabled: false, ...extra },
    platform: me.platform,
    loggedIn: true,
  });
}

async function openSecurity() {
  render(<AccountSettings />);
  const u = userEvent.setup();
  await u.click(screen.getByRole('tab', { name: 'Security' }));
  return { u, toggle: screen.getByRole('switch', { name: /Two-Factor Authentication/ }) };
}

const setupReply = { body: { secret: SECRET, otpauthUrl: `otpauth://totp/Parley:ada%40example.com?secret=${SECRET}&issuer=Parley`, qrSvg: SVG } };

describe('two-factor sign-in in Settings', () => {
  beforeEach(() => {
    Object.assign(twoFactor, { dialog: null, recoveryCodesLeft: null });
    signedIn();
  });

  it('shows the key in groups of four and the SVG as an image', () => {
    expect(groupedKey('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
    expect(groupedKey('ABCDEF')).toBe('ABCD EF');
    expect(svgDataUrl('<svg a="1">#</svg>')).toBe('data:image/svg+xml;utf8,%3Csvg%20a%3D%221%22%3E%23%3C%2Fsvg%3E');
  });

  it('turns on through the dialog: QR code and key, the first code with the password, then the recovery codes once', async () => {
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'GET /api/me/two-factor': { body: { enabled: false, recoveryCodesLeft: 0 } },
      'POST /api/me/two-factor/setup': setupReply,
      'POST /api/me/two-factor/enable': { body: { enabled: true, recoveryCodes: CODES } },
    });
    const { u, toggle } = await openSecurity();
    expect(toggle).not.toBeChecked();
    await u.click(toggle);

    const dialog = within(await screen.findByRole('dialog', { name: 'Turn on two-factor authentication' }));
    const qr = await dialog.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(qr.getAttribute('src')).toBe(svgDataUrl(SVG));
    expect(dialog.getByTestId('two-factor-secret')).toHaveTextContent(groupedKey(SECRET));
    expect(dialog.getByRole('button', { name: 'Copy key' })).toBeInTheDocument();
    const turnOn = dialog.getByRole('button', { name: 'Turn on' });
    expect(turnOn).toBeDisabled();
    await u.type(dialog.getByLabelText('6-digit code'), '123456');
    expect(turnOn).toBeDisabled(); // the password is still missing
    await u.type(dialog.getByLabelText('Current Password'), 'password123');
    await u.click(turnOn);

    const codes = within(await screen.findByRole('dialog', { name: 'Save your recovery codes' }));
    expect(codes.getByTestId('recovery-codes').querySelectorAll('li')).toHaveLength(10);
    expect(codes.getByText(CODES[0])).toBeInTheDocument();
    expect(codes.getByText(/Each code works once/)).toBeInTheDocument();
    expect(codes.getByRole('button', { name: 'Copy all codes' })).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/me/two-factor/setup')).toMatchObject({ method: 'POST', body: {} });
    expect(calls.find((c) => c.path === '/api/me/two-factor/enable')?.body).toEqual({ code: '123456', currentPassword: 'password123' });
    expect(session.user?.twoFactorEnabled).toBe(true);

    await u.click(codes.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(toggle).toBeChecked();
    expect(screen.getByText('Sign-in asks for a code from your authenticator app')).toBeInTheDocument();
    expect(screen.getByTestId('recovery-codes-left')).toHaveTextContent('10 recovery codes left');
  });

  it("shows the server's refusal of a wrong code in the dialog, and stays off", async () => {
    mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'GET /api/me/two-factor': { body: { enabled: false, recoveryCodesLeft: 0 } },
      'POST /api/me/two-factor/setup': setupReply,
      'POST /api/me/two-factor/enable': refusal(422, 'validation_failed', 'That code is not right. Check that your phone\'s clock is set automatically.'),
    });
    const { u, toggle } = await openSecurity();
    await u.click(toggle);
    const dialog = within(await screen.findByRole('dialog', { name: 'Turn on two-factor authentication' }));
    await u.type(await dialog.findByLabelText('6-digit code'), '000000');
    await u.type(dialog.getByLabelText('Current Password'), 'password123');
    await u.click(dialog.getByRole('button', { name: 'Turn on' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent(/That code is not right/);
    expect(dialog.getByLabelText('6-digit code')).toHaveValue('000000');
    expect(session.user?.twoFactorEnabled).toBe(false);
    await u.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(toggle).not.toBeChecked();
  });

  it('an account without a password is sent to confirm with Google or GitHub when the server asks', async () => {
    signedIn({ hasPassword: false });
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'GET /api/me/two-factor': { body: { enabled: false, recoveryCodesLeft: 0 } },
      'POST /api/me/two-factor/setup': setupReply,
      'POST /api/me/two-factor/enable': refusal(
        403,
        'provider_confirmation_required',
        'Your account has no password, so confirm it is you by signing in again with Google or GitHub. Then turn on two-factor authentication within 10 minutes.',
      ),
    });
    const { u, toggle } = await openSecurity();
    await u.click(toggle);
    const dialog = within(await screen.findByRole('dialog', { name: 'Turn on two-factor authentication' }));
    await u.type(await dialog.findByLabelText('6-digit code'), '123456');
    expect(dialog.queryByLabelText('Current Password')).toBeNull();
    await u.click(dialog.getByRole('button', { name: 'Turn on' }));
    expect(await dialog.findByText(/confirm it is you by signing in again with Google or GitHub/)).toBeInTheDocument();
    expect(calls.find((c) => c.path === '/api/me/two-factor/enable')?.body).toEqual({ code: '123456' });
    expect(dialog.getByRole('link', { name: 'Confirm with Google' })).toHaveAttribute('href', '/api/auth/google');
    // jsdom cannot leave the page: stop the link's navigation, keep its click handler.
    document.addEventListener('click', (e) => e.preventDefault(), { once: true });
    await u.click(dialog.getByRole('link', { name: 'Confirm with GitHub' }));
    expect(sessionStorage.getItem('parley.afterSignIn')).toBe('/settings');
    sessionStorage.clear();
  });

  it('turns off with the password and a recovery code', async () => {
    signedIn({ twoFactorEnabled: true });
    const calls = mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'GET /api/me/two-factor': { body: { enabled: true, recoveryCodesLeft: 7 } },
      'POST /api/me/two-factor/disable': { body: { enabled: false, recoveryCodesLeft: 0 } },
    });
    const { u, toggle } = await openSecurity();
    expect(toggle).toBeChecked();
    expect(await screen.findByTestId('recovery-codes-left')).toHaveTextContent('7 recovery codes left');
    await u.click(toggle);
    const dialog = within(await screen.findByRole('dialog', { name: 'Turn off two-factor authentication' }));
    await u.type(await dialog.findByLabelText('Current Password'), 'password123');
    await u.type(dialog.getByLabelText('Code from your app or a recovery code'), ' abcde-fghjk ');
    await u.click(dialog.getByRole('button', { name: 'Turn off' }));
    await waitFor(() => expect(toggle).not.toBeChecked());
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(calls.find((c) => c.path === '/api/me/two-factor/disable')).toMatchObject({
      method: 'POST',
      body: { code: 'abcde-fghjk', currentPassword: 'password123' },
    });
    expect(session.user?.twoFactorEnabled).toBe(false);
    expect(await screen.findByText('Two-factor authentication is off')).toBeInTheDocument();
  });

  it('a refused turn-off keeps the dialog with the message and the switch on', async () => {
    signedIn({ twoFactorEnabled: true });
    mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'GET /api/me/two-factor': { body: { enabled: true, recoveryCodesLeft: 10 } },
      'POST /api/me/two-factor/disable': refusal(422, 'validation_failed', 'Current password is incorrect'),
    });
    const { u, toggle } = await openSecurity();
    await u.click(toggle);
    const dialog = within(await screen.findByRole('dialog', { name: 'Turn off two-factor authentication' }));
    await u.type(await dialog.findByLabelText('Current Password'), 'wrong-one');
    await u.type(dialog.getByLabelText('Code from your app or a recovery code'), '123456');
    await u.click(dialog.getByRole('button', { name: 'Turn off' }));
    expect(await dialog.findByRole('alert')).toHaveTextContent('Current password is incorrect');
    expect(toggle).toBeChecked();
    expect(session.user?.twoFactorEnabled).toBe(true);
  });

  it('takes whether it is on from the server when the screen opens', async () => {
    mockFetch({
      'GET /api/me/notifications': { body: prefs },
      'GET /api/me/two-factor': { body: { enabled: true, recoveryCodesLeft: 0 } },
    });
    const { toggle } = await openSecurity();
    await waitFor(() => expect(toggle).toBeChecked());
    expect(screen.getByTestId('recovery-codes-left')).toHaveTextContent(/No recovery codes left/);
  });
});
