// The account and bot-settings calls of the Settings and Bot Settings screens (http/src/routes/me.rs,
// http/src/routes/two_factor.rs, http/src/routes/bots/settings.rs).
import { api } from '@/lib/api';
import type { User } from '@/features/auth/api/auth';

export interface BotSettings {
  maxChatTextSize: number;
  urlWhitelist: string[];
}

export interface NotificationPrefs {
  emailNotifications: boolean;
  pushNotifications: boolean;
  weeklyReports: boolean;
  securityAlerts: boolean;
}

export interface ProfileInput {
  name?: string;
  email?: string;
  /** Required by the server with a new email on an account that has a password. */
  currentPassword?: string;
}

export interface ProfileResponse {
  user: User;
  /** The new address waiting for its confirmation link to be followed. */
  pendingEmail?: string | null;
  message?: string | null;
}

export interface PasswordInput {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export interface TwoFactorStatus {
  enabled: boolean;
  recoveryCodesLeft: number;
}

export interface TwoFactorSetup {
  /** Base32, for typing into the app by hand. */
  secret: string;
  otpauthUrl: string;
  /** The set-up address as an `<svg>` QR code; null when the server could not draw it. */
  qrSvg: string | null;
}

export interface TwoFactorConfirm {
  /** A 6-digit code from the app (or, to turn it off, a recovery code). */
  code: string;
  /** Required by the server on an account with a password. */
  currentPassword?: string;
}

const bot = (id: string) => `/bots/${encodeURIComponent(id)}/settings`;

export const botSettingsApi = {
  get: (botId: string) => api<BotSettings>(bot(botId)),
  /** `maxChatTextSize` is sent as the number the screen holds (0 for a non-number, which the server refuses). */
  save: (botId: string, settings: BotSettings) =>
    api<BotSettings>(bot(botId), { method: 'PUT', body: { ...settings } }),
};

export const accountApi = {
  updateProfile: (input: ProfileInput) => api<ProfileResponse>('/me', { method: 'PUT', body: { ...input } }),
  uploadAvatar: (file: File) => {
    const form = new FormData();
    form.append('avatar', file);
    return api<{ profilePicture: string }>('/me/avatar', { method: 'POST', body: form });
  },
  /** The server ends every earlier session and answers with a fresh token for this one. */
  changePassword: (input: PasswordInput) =>
    api<{ token?: string } | undefined>('/me/password', { method: 'PUT', body: { ...input } }),
  notifications: () => api<NotificationPrefs>('/me/notifications'),
  saveNotifications: (prefs: NotificationPrefs) =>
    api<NotificationPrefs>('/me/notifications', { method: 'PUT', body: { ...prefs } }),
};

export const twoFactorApi = {
  status: () => api<TwoFactorStatus>('/me/two-factor'),
  /** A new secret; nothing changes at sign-in until `enable` confirms it with a code. */
  setup: () => api<TwoFactorSetup>('/me/two-factor/setup', { method: 'POST', body: {} }),
  /** Answers the recovery codes, which the server shows this once. */
  enable: (input: TwoFactorConfirm) =>
    api<{ enabled: true; recoveryCodes: string[] }>('/me/two-factor/enable', { method: 'POST', body: { ...input } }),
  disable: (input: TwoFactorConfirm) =>
    api<TwoFactorStatus>('/me/two-factor/disable', { method: 'POST', body: { ...input } }),
};
