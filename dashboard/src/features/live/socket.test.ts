import { beforeEach, describe, expect, it, vi } from 'vitest';

type Handler = (...args: unknown[]) => void;
const made: {
  url: string;
  opts: Record<string, unknown>;
  handlers: Map<string, Handler[]>;
  disconnect: ReturnType<typeof vi.fn>;
  connect: ReturnType<typeof vi.fn>;
  connected: boolean;
  active: boolean;
}[] = [];
vi.mock('socket.io-client', () => ({
  io: (url: string, opts: Record<string, unknown>) => {
    const handlers = new Map<string, Handler[]>();
    const s = {
      url,
      opts,
      handlers,
      connected: false,
      active: true,
      disconnect: vi.fn(),
      connect: vi.fn(),
      on: (e: string, h: Handler) => handlers.set(e, [...(handlers.get(e) ?? []), h]),
      off: (e: string, h: Handler) => handlers.set(e, (handlers.get(e) ?? []).filter((x) => x !== h)),
      removeAllListeners: () => handlers.clear(),
    };
    made.push(s);
    return s;
  },
}));

import { closeLive, live, liveSocket, onLive } from './socket';
import { runSignOutResets } from '@/lib/sign-out';

beforeEach(() => {
  closeLive();
  made.length = 0;
});

describe('the tab live connection', () => {
  it('is not opened while signed out', () => {
    expect(liveSocket()).toBeNull();
    expect(made).toHaveLength(0);
  });

  it('opens once with the spec settings and reads the token at every (re)connect', () => {
    localStorage.setItem('authToken', 't1');
    const a = liveSocket();
    const b = liveSocket();
    expect(a).toBe(b);
    expect(made).toHaveLength(1);
    const { url, opts } = made[0];
    expect(url).toBe('/');
    expect(opts).toMatchObject({ transports: ['websocket', 'polling'], reconnectionDelay: 1000, reconnectionDelayMax: 5000, timeout: 20000 });
    const auth = opts.auth as (cb: (v: unknown) => void) => void;
    let sent: unknown;
    auth((v) => (sent = v));
    expect(sent).toEqual({ token: 't1' });
    localStorage.setItem('authToken', 't2');
    auth((v) => (sent = v));
    expect(sent).toEqual({ token: 't2' });
  });

  it('tracks the connection and hears connect again after a reconnect', () => {
    localStorage.setItem('authToken', 't1');
    const connects = vi.fn();
    onLive('connect', connects);
    const fire = (e: string) => made[0].handlers.get(e)?.forEach((h) => h());
    fire('connect');
    expect(live.connected).toBe(true);
    fire('disconnect');
    expect(live.connected).toBe(false);
    fire('connect');
    expect(connects).toHaveBeenCalledTimes(2);
  });

  it('tries again later, with the token current then, when the server refused the connection', () => {
    vi.useFakeTimers();
    try {
      localStorage.setItem('authToken', 'old');
      liveSocket();
      const s = made[0];
      s.active = false;
      s.handlers.get('connect_error')?.forEach((h) => h(new Error('expired')));
      expect(live.connected).toBe(false);
      localStorage.setItem('authToken', 'new');
      vi.advanceTimersByTime(5000);
      expect(s.connect).toHaveBeenCalledTimes(1);
      let sent: unknown;
      (s.opts.auth as (cb: (v: unknown) => void) => void)((v) => (sent = v));
      expect(sent).toEqual({ token: 'new' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('is closed on sign-out', () => {
    localStorage.setItem('authToken', 't1');
    liveSocket();
    runSignOutResets();
    expect(made[0].disconnect).toHaveBeenCalled();
    expect(live.connected).toBe(false);
    localStorage.removeItem('authToken');
    expect(liveSocket()).toBeNull();
  });
});
