// App state persisted under one local-storage key, `root`, as the spec says: each store owns a
// slice (`root.session`, `root.bots`, ...) and names the fields worth keeping across reloads.
import { subscribe, snapshot } from 'valtio';

export const ROOT_KEY = 'root';
/** The persisted-state loader gives up after this long and the app starts with what it has. */
export const LOAD_TIMEOUT_MS = 5000;

function readRoot(): Record<string, unknown> {
  try {
    const raw = localStorage.getItem(ROOT_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {}; // a corrupt value must not keep the app from starting
  }
}

function pick<T extends object, K extends keyof T>(state: T, fields: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const f of fields) out[f] = state[f];
  return out;
}

export function writeSlice<T extends object, K extends keyof T>(
  slice: string,
  state: T,
  fields: readonly K[],
): void {
  const root = readRoot();
  root[slice] = pick(snapshot(state) as T, fields);
  localStorage.setItem(ROOT_KEY, JSON.stringify(root));
}

/** Copies the saved fields of `slice` into `state`; unknown or missing fields are left alone. */
export function restoreSlice<T extends object, K extends keyof T>(
  slice: string,
  state: T,
  fields: readonly K[],
): void {
  const saved = readRoot()[slice];
  if (!saved || typeof saved !== 'object') return;
  for (const f of fields) {
    if (f in saved) state[f] = (saved as T)[f];
  }
}

/** Restores the slice, then keeps it saved on every change. Returns the unsubscribe function. */
export function persistSlice<T extends object, K extends keyof T>(
  slice: string,
  state: T,
  fields: readonly K[],
): () => void {
  restoreSlice(slice, state, fields);
  return subscribe(state, () => writeSlice(slice, state, fields));
}

/** Resolves with the promise's value, or with `fallback` once `ms` have passed. */
export function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}
