// The Settings screen: profile (name, email, avatar), password change, notification preferences.
// Everything is saved on the server; a saved profile is copied into the session so the sidebar
// shows it at once.
import { proxy } from 'valtio';
import { PASSWORD_MIN, PASSWORD_TOO_SHORT } from '@/features/auth/api/auth';
import { errorMessage, setToken } from '@/lib/api';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { session, updateUser } from '@/features/auth/stores/session';
import { setPushNotifications } from '@/features/support/stores/alerts';
import { accountApi, type NotificationPrefs } from '../api/settings';

export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';
export const IMAGES_ONLY = 'Please upload an image file';
export { PASSWORD_MIN };
export const EMAIL_CHANGE_NEEDS_PASSWORD = 'Enter your current password to change your email address';

/** Whether the form's address differs from the account's (the server compares case-insensitively). */
export function emailChanged(formEmail: string, current: string | undefined): boolean {
  return !!formEmail.trim() && formEmail.trim().toLowerCase() !== (current ?? '').trim().toLowerCase();
}

/** Spec §5: avatar upload accepts image files only. */
export function isImageFile(file: Pick<File, 'type' | 'name'>): boolean {
  if (file.type) return file.type.startsWith('image/');
  return /\.(png|jpe?g|gif|webp|bmp|svg|avif)$/i.test(file.name);
}

export interface PasswordForm {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

/** Field errors of the password form, keyed by field; empty when it may be sent. */
export function passwordErrors(f: PasswordForm, needsCurrent: boolean): Partial<Record<keyof PasswordForm, string>> {
  const errors: Partial<Record<keyof PasswordForm, string>> = {};
  if (needsCurrent && !f.currentPassword) errors.currentPassword = 'Current password is required';
  if (!f.newPassword) errors.newPassword = 'New password is required';
  else if ([...f.newPassword].length < PASSWORD_MIN) errors.newPassword = PASSWORD_TOO_SHORT;
  if (f.confirmPassword !== f.newPassword) errors.confirmPassword = PASSWORDS_DO_NOT_MATCH;
  return errors;
}

export const DEFAULT_PREFS: NotificationPrefs = {
  emailNotifications: true,
  pushNotifications: false,
  weeklyReports: true,
  securityAlerts: true,
};

export interface AccountState {
  name: string;
  email: string;
  /** Asked only when the email changes on an account that has a password. */
  emailPassword: string;
  /** The new address waiting for its confirmation link. */
  pendingEmail: string | null;
  savingProfile: boolean;
  uploadingAvatar: boolean;
  avatarError: string | null;
  password: PasswordForm;
  passwordSubmitted: boolean;
  savingPassword: boolean;
  prefs: NotificationPrefs;
  prefsLoaded: boolean;
  prefsError: string | null;
  savingPrefs: boolean;
}

const initial = (): AccountState => ({
  name: '',
  email: '',
  emailPassword: '',
  pendingEmail: null,
  savingProfile: false,
  uploadingAvatar: false,
  avatarError: null,
  password: { currentPassword: '', newPassword: '', confirmPassword: '' },
  passwordSubmitted: false,
  savingPassword: false,
  prefs: { ...DEFAULT_PREFS },
  prefsLoaded: false,
  prefsError: null,
  savingPrefs: false,
});

export const account = proxy<AccountState>(initial());

export const accountActions = {
  /** Fills the forms from the signed-in user and loads the notification preferences. */
  async open(): Promise<void> {
    Object.assign(account, initial(), {
      name: session.user?.name ?? '',
      email: session.user?.email ?? '',
    });
    try {
      account.prefs = await accountApi.notifications();
      account.prefsLoaded = true;
    } catch (err) {
      account.prefsError = errorMessage(err, 'Failed to load notification preferences');
    }
  },

  async saveProfile(): Promise<boolean> {
    const name = account.name.trim();
    const email = account.email.trim();
    if (!email) {
      notify.error('Profile not saved', 'Email address is required');
      return false;
    }
    const changing = emailChanged(email, session.user?.email);
    const needsPassword = changing && session.user?.hasPassword !== false;
    if (needsPassword && !account.emailPassword) {
      notify.error('Profile not saved', EMAIL_CHANGE_NEEDS_PASSWORD);
      return false;
    }
    account.savingProfile = true;
    try {
      const { user, pendingEmail, message } = await accountApi.updateProfile(
        needsPassword ? { name, email, currentPassword: account.emailPassword } : { name, email },
      );
      updateUser(user);
      account.name = user.name ?? '';
      // The address changes only when the link sent to the new one is followed.
      account.email = user.email;
      account.emailPassword = '';
      account.pendingEmail = pendingEmail ?? null;
      if (changing && message) notify.info('Confirm your new email', message);
      else notify.success('Profile updated', 'Your profile was saved');
      return true;
    } catch (err) {
      notify.error('Profile not saved', errorMessage(err, 'Failed to save your profile'));
      return false;
    } finally {
      account.savingProfile = false;
    }
  },

  async uploadAvatar(file: File | null): Promise<boolean> {
    if (!file) return false;
    if (!isImageFile(file)) {
      account.avatarError = IMAGES_ONLY;
      notify.error('Avatar not changed', IMAGES_ONLY);
      return false;
    }
    account.avatarError = null;
    account.uploadingAvatar = true;
    try {
      const { profilePicture } = await accountApi.uploadAvatar(file);
      updateUser({ profilePicture });
      notify.success('Avatar updated', 'Your new picture is saved');
      return true;
    } catch (err) {
      account.avatarError = errorMessage(err, 'Failed to upload the picture');
      notify.error('Avatar not changed', account.avatarError);
      return false;
    } finally {
      account.uploadingAvatar = false;
    }
  },

  setPassword(field: keyof PasswordForm, value: string) {
    account.password[field] = value;
  },

  async changePassword(): Promise<boolean> {
    account.passwordSubmitted = true;
    const needsCurrent = session.user?.hasPassword !== false;
    if (Object.keys(passwordErrors(account.password, needsCurrent)).length > 0) return false;
    account.savingPassword = true;
    try {
      const changed = await accountApi.changePassword({ ...account.password });
      // Earlier sessions (this one's token included) end with a password change.
      if (changed?.token) {
        setToken(changed.token);
        session.token = changed.token;
      }
      account.password = { currentPassword: '', newPassword: '', confirmPassword: '' };
      account.passwordSubmitted = false;
      updateUser({ hasPassword: true });
      notify.success('Password changed', 'Use your new password next time you sign in');
      return true;
    } catch (err) {
      notify.error('Password not changed', errorMessage(err, 'Failed to change your password'));
      return false;
    } finally {
      account.savingPassword = false;
    }
  },

  setPref(key: keyof NotificationPrefs, value: boolean) {
    account.prefs[key] = value;
  },

  async savePrefs(): Promise<boolean> {
    account.savingPrefs = true;
    try {
      account.prefs = await accountApi.saveNotifications({ ...account.prefs });
      setPushNotifications(account.prefs.pushNotifications);
      account.prefsLoaded = true;
      account.prefsError = null;
      notify.success('Preferences saved', 'Your notification preferences were saved');
      return true;
    } catch (err) {
      notify.error('Preferences not saved', errorMessage(err, 'Failed to save notification preferences'));
      return false;
    } finally {
      account.savingPrefs = false;
    }
  },
};

onSignOut(() => Object.assign(account, initial()));
