// The one fetch wrapper: same-origin /api, the bearer token from local storage, and the server's
// error shape `{"error":{"code","message"}}` turned into an ApiError.

export const TOKEN_KEY = 'authToken';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** With code `plan_limit`: the limit reached (`bots`, `conversations`) and where to raise it. */
  readonly limit?: string;
  readonly upgradeUrl?: string;

  constructor(status: number, code: string, message: string, limit?: string, upgradeUrl?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.limit = limit;
    this.upgradeUrl = upgradeUrl;
  }
}

/** The refusal of a plan limit, if `err` is one. */
export function planLimit(err: unknown): ApiError | null {
  return err instanceof ApiError && err.code === 'plan_limit' ? err : null;
}

export function getToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

type Body = Record<string, unknown> | unknown[] | FormData;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: Body;
  signal?: AbortSignal;
}

/** Human text for any thrown value, for toasts and inline errors. */
export function errorMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.message) return err.message;
  return fallback;
}

async function parseError(res: Response): Promise<ApiError> {
  let code = 'http_error';
  let message = res.statusText || `Request failed (${res.status})`;
  let limit: string | undefined;
  let upgradeUrl: string | undefined;
  try {
    const data = (await res.json()) as { error?: { code?: string; message?: string; limit?: string; upgradeUrl?: string } };
    if (data?.error) {
      code = data.error.code ?? code;
      message = data.error.message ?? message;
      limit = data.error.limit;
      upgradeUrl = data.error.upgradeUrl;
    }
  } catch {
    // Not JSON (a proxy page, an empty body): keep the status text.
  }
  return new ApiError(res.status, code, message, limit, upgradeUrl);
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;

  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body; // the browser sets the multipart boundary
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }

  let res: Response;
  try {
    res = await fetch(`/api${path}`, {
      method: options.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      signal: options.signal,
    });
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'Unable to reach the server');
  }

  if (!res.ok) throw await parseError(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
