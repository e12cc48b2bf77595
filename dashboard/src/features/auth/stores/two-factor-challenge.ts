// The challenge of `/login#twoFactor=…`: a Google or GitHub sign-in of an account with two-factor
// sign-in on comes back there, and the code step takes it (in the fragment, which browsers never
// send to a server). A module of its own: the route guards, in every screen's first load, read it.

export function twoFactorChallengeFrom(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('twoFactor') || null;
}
