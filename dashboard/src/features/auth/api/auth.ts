import { api } from '@/lib/api';

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
}

export interface Platform {
  remainingCredits: number;
  creditsUsed: number;
  creditsTotal: number;
  planType: string;
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
};

/** Browser navigation, not a data call: the server redirects to the provider and back to /auth-success. */
export function oauthUrl(provider: 'google' | 'github'): string {
  return `/api/auth/${provider}`;
}
