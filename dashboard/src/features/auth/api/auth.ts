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
  /** Sign-in asks for a code from an authenticator app. The server always sends it; a session
   * saved by an older dashboard lacks it until /api/me answers. */
  twoFactorEnabled?: boolean;
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

/** What sign-in answers instead of the session when the account has two-factor sign-in on: the
 * challenge goes to `POST /api/auth/two-factor` with the code. */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
  challenge: string;
  message: string;
}

export type LoginResponse = AuthResponse | TwoFactorChallenge;

export function needsCode(r: LoginResponse): r is TwoFactorChallenge {
  return 'twoFactorRequired' in r && r.twoFactorRequired === true;
}

/** The server's words for the code step, for a challenge that came without them (Google, GitHub). */
export const TWO_FACTOR_PROMPT = 'Enter the 6-digit code from your authenticator app';

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

export type SignInProvider = 'google' | 'github';

/** `GET /api/auth/providers`: true for each provider the server has settings for. */
export type SignInProviders = Record<SignInProvider, boolean>;

export const authApi = {
  /** Public: the sign-in screens ask it before offering Google or GitHub. */
  providers: () => api<SignInProviders>('/auth/providers'),
  signup: (input: SignupInput) =>
    api<AuthResponse>('/auth/signup', { method: 'POST', body: { ...input } }),
  login: (email: string, password: string) =>
    api<LoginResponse>('/auth/login', { method: 'POST', body: { email, password } }),
  /** The second step of sign-in: the app's code, or a recovery code, for the challenge. */
  twoFactor: (challenge: string, code: string) =>
    api<AuthResponse>('/auth/two-factor', { method: 'POST', body: { challenge, code } }),
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
export function oauthUrl(provider: SignInProvider): string {
  return `/api/auth/${provider}`;
}
