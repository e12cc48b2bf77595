import { vi } from 'vitest';

export interface Call {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

type Reply = { status?: number; body?: unknown } | Promise<never>;
type Handler = (call: Call) => Reply;

/**
 * Stubs global fetch with handlers keyed "METHOD /api/path" (query string ignored). Unmatched
 * calls answer 404 in the server's error shape. Returns the list of calls made.
 */
export function mockFetch(handlers: Record<string, Handler | Reply>) {
  const calls: Call[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = (init.headers ?? {}) as Record<string, string>;
    let body: unknown = init.body;
    if (typeof init.body === 'string') body = JSON.parse(init.body);
    const call = { method, path: url.pathname, headers, body };
    calls.push(call);
    const h = handlers[`${method} ${url.pathname}`];
    const reply = typeof h === 'function' ? h(call) : h;
    if (reply instanceof Promise) return reply;
    if (!reply) {
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'Not found' } }), { status: 404 });
    }
    const status = reply.status ?? 200;
    return new Response(status === 204 ? null : JSON.stringify(reply.body ?? {}), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fn);
  return calls;
}

export const user = {
  _id: 'u1',
  id: 'u1',
  name: 'Ada',
  email: 'ada@example.com',
  profilePicture: null,
  timezone: 'UTC',
  language: 'en',
};

export const me = {
  user,
  platform: [{ remainingCredits: 70, creditsUsed: 30, creditsTotal: 100, planType: 'free' }],
};

export function bot(id: string, name: string | null, extra: Record<string, unknown> = {}) {
  return {
    _id: id,
    id,
    name,
    description: null,
    icon: null,
    status: 'active',
    lastActive: null,
    // The caller's role on the bot, as GET /api/bots sends it: the owner unless a test says.
    role: 'owner',
    ...extra,
  };
}
