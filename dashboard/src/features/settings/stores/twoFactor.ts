// The Security tab's two-factor sign-in: the set-up dialog (QR code, secret, first code, then the
// recovery codes shown once) and the turn-off dialog. Whether it is on lives in the session user
// (`twoFactorEnabled`), so the switch and everything else that reads the user agree.
import { proxy } from 'valtio';
import { ApiError, errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { session, updateUser } from '@/features/auth/stores/session';
import { twoFactorApi, type TwoFactorConfirm, type TwoFactorSetup } from '../api/settings';

export interface TwoFactorState {
  /** The open dialog: turning it on (set-up, then the recovery codes) or off. */
  dialog: 'enable' | 'disable' | null;
  /** The secret of the set-up in progress; forgotten once it is on. */
  setup: TwoFactorSetup | null;
  loadingSetup: boolean;
  code: string;
  currentPassword: string;
  busy: boolean;
  error: string | null;
  /** The server wants a fresh Google or GitHub sign-in (an account without a password). */
  needsProviderSignIn: boolean;
  /** Shown once, right after turning it on. */
  recoveryCodes: string[] | null;
  recoveryCodesLeft: number | null;
}

const fields = () => ({
  setup: null,
  loadingSetup: false,
  code: '',
  currentPassword: '',
  busy: false,
  error: null,
  needsProviderSignIn: false,
  recoveryCodes: null,
});

const initial = (): TwoFactorState => ({ dialog: null, recoveryCodesLeft: null, ...fields() });

export const twoFactor = proxy<TwoFactorState>(initial());

/** Whether turning it on or off asks for the current password (else a fresh provider sign-in). */
export const needsPassword = () => session.user?.hasPassword !== false;

function refused(err: unknown, fallback: string) {
  twoFactor.error = errorMessage(err, fallback);
  twoFactor.needsProviderSignIn =
    err instanceof ApiError && (err.code === 'provider_confirmation_required' || (err.status === 403 && !needsPassword()));
}

function confirmation(): TwoFactorConfirm {
  const code = twoFactor.code.trim();
  return needsPassword() ? { code, currentPassword: twoFactor.currentPassword } : { code };
}

export const twoFactorActions = {
  /** Refreshes whether it is on (another tab may have changed it) and how many recovery codes are left. */
  async load(): Promise<void> {
    try {
      const status = await twoFactorApi.status();
      updateUser({ twoFactorEnabled: status.enabled });
      twoFactor.recoveryCodesLeft = status.recoveryCodesLeft;
    } catch {
      // The switch keeps what the session user says; turning it on or off reports any error.
    }
  },

  /** Opens the set-up dialog with a new secret from the server. */
  async startEnable(): Promise<void> {
    Object.assign(twoFactor, fields(), { dialog: 'enable', loadingSetup: true });
    try {
      const setup = await twoFactorApi.setup();
      if (twoFactor.dialog === 'enable') twoFactor.setup = setup;
    } catch (err) {
      // 409: it was turned on meanwhile (another tab).
      if (err instanceof ApiError && err.status === 409) updateUser({ twoFactorEnabled: true });
      refused(err, 'Could not start setting up two-factor authentication');
    } finally {
      twoFactor.loadingSetup = false;
    }
  },

  async enable(): Promise<boolean> {
    twoFactor.busy = true;
    twoFactor.error = null;
    twoFactor.needsProviderSignIn = false;
    try {
      const { recoveryCodes } = await twoFactorApi.enable(confirmation());
      updateUser({ twoFactorEnabled: true });
      Object.assign(twoFactor, fields(), { recoveryCodes, recoveryCodesLeft: recoveryCodes.length });
      return true;
    } catch (err) {
      refused(err, 'Two-factor authentication was not turned on');
      return false;
    } finally {
      twoFactor.busy = false;
    }
  },

  startDisable(): void {
    Object.assign(twoFactor, fields(), { dialog: 'disable' });
  },

  async disable(): Promise<boolean> {
    twoFactor.busy = true;
    twoFactor.error = null;
    twoFactor.needsProviderSignIn = false;
    try {
      const status = await twoFactorApi.disable(confirmation());
      updateUser({ twoFactorEnabled: status.enabled });
      Object.assign(twoFactor, fields(), { dialog: null, recoveryCodesLeft: status.recoveryCodesLeft });
      notify.success('Two-factor authentication is off', 'Sign-in asks for your password only');
      return true;
    } catch (err) {
      refused(err, 'Two-factor authentication was not turned off');
      return false;
    } finally {
      twoFactor.busy = false;
    }
  },

  /** Closes either dialog. What it showed stays until it has faded out (see `forget`). */
  close(): void {
    twoFactor.dialog = null;
  },

  /** Forgets the secret, the recovery codes and what was typed, once no dialog shows them. */
  forget(): void {
    if (twoFactor.dialog === null) Object.assign(twoFactor, fields());
  },
};

onSignOut(() => Object.assign(twoFactor, initial()));
