// The account and bot-settings calls of the Settings and Bot Settings screens (http/src/routes/me.rs,
// http/src/routes/bots/settings.rs).
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
