// Sign-out fans out to every store that holds per-user data, without the session store having to
// know them: each registers its own reset here.
const resets = new Set<() => void>();

export function onSignOut(reset: () => void): () => void {
  resets.add(reset);
  return () => resets.delete(reset);
}

export function runSignOutResets(): void {
  for (const reset of resets) reset();
}
