import { api } from '@/lib/api';

/** The server's shortest password (http/src/domain.rs). */
export const PASSWORD_MIN = 8;
/** The server's words for a shorter password, shown before sending it. */
export const PASSWORD_TOO_SHORT = `Password must be at least ${PASSWORD_MIN} characters`;

export interface User {
  _id: string;
  id: string;
  name: string | null;
  email: string;
  profilePicture: string | null;
  timezone?: string | null;
  language?: string | null;
  /** False for an account made through Google or GitHub that never set a password. */
  hasPassword?: boolean;
  /** False until the link mailed to the address is followed; only then can invitations be accepted. */
  emailVerified?: boolean;
}

export interface Platform {
  remainingCredits: number;
  creditsUsed: number;
  creditsTotal: number;
  planType: string;
  planName?: string;
  conversationsUsed?: number;
  conversationsTotal?: number;
  botsUsed?: number;
  botsTotal?: number;
}

export interface AuthResponse {
  token: string;
  user: User;
}

export interface MeResponse {
  user: User;
  platform: Platform[];
}

export interface SignupInput {
  email: string;
  password: string;
  confirmPassword: string;
  name?: string;
}

export const authApi = {
  signup: (input: SignupInput) =>
    api<AuthResponse>('/auth/signup', { method: 'POST', body: { ...input } }),
  login: (email: string, password: string) =>
    api<AuthResponse>('/auth/login', { method: 'POST', body: { email, password } }),
  me: () => api<MeResponse>('/me'),
  /** Ends every session of the account, this one included. */
  logoutEverywhere: () => api<{ message: string }>('/auth/logout-everywhere', { method: 'POST', body: {} }),
  /** Follows a link from `/verify-email?token=` (sign-up verification or a new address). */
  verifyEmail: (token: string) =>
    api<{ message: string; emailChanged: boolean; user: User }>('/auth/verify-email', { method: 'POST', body: { token } }),
  resendVerification: () => api<{ message: string }>('/auth/resend-verification', { method: 'POST', body: {} }),
  forgotPassword: (email: string) => api<{ message: string }>('/auth/forgot-password', { method: 'POST', body: { email } }),
  resetPassword: (token: string, password: string, confirmPassword: string) =>
    api<{ message: string }>('/auth/reset-password', { method: 'POST', body: { token, password, confirmPassword } }),
};

/** Browser navigation, not a data call: the server redirects to the provider and back to /auth-success. */
export function oauthUrl(provider: 'google' | 'github'): string {
  return `/api/auth/${provider}`;
}
