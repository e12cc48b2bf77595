import { beforeEach, describe, expect, it, vi } from 'vitest';

// socket.io-client stand-in: records the sockets the transport creates and what it does with them.
const fake = vi.hoisted(() => {
  class FakeSocket {
    handlers = new Map<string, ((p: unknown) => void)[]>();
    emitted: [string, unknown][] = [];
    closed = false;
    active = true;
    constructor(public opts: Record<string, unknown>) {}
    on(event: string, h: (p: unknown) => void) {
      this.handlers.set(event, [...(this.handlers.get(event) ?? []), h]);
      return this;
    }
    fire(event: string, payload?: unknown) {
      (this.handlers.get(event) ?? []).forEach((h) => h(payload));
    }
    timeout() {
      return { emitWithAck: async (event: string, payload: unknown) => (this.emitted.push([event, payload]), { success: true }) };
    }
    close() {
      this.closed = true;
    }
  }
  return { FakeSocket, sockets: [] as InstanceType<typeof FakeSocket>[] };
});
vi.mock('socket.io-client', () => ({
  io: (opts: Record<string, unknown>) => {
    const s = new fake.FakeSocket(opts);
    fake.sockets.push(s);
    return s;
  },
}));

const { httpTransport } = await import('./transport');

beforeEach(() => {
  fake.sockets.length = 0;
});

describe('the live transport', () => {
  it('loads socket.io-client on connect, keeping the handlers and emits made meanwhile', async () => {
    const onReconnect = vi.fn();
    const live = httpTransport.connect('tok', onReconnect);
    const seen: unknown[] = [];
    live.on('new-message', (p) => seen.push(p));
    const ack = live.emit('join-session', { sessionId: 's1' });
    expect(fake.sockets).toHaveLength(0); // nothing yet: the chunk is still on its way

    await expect(ack).resolves.toEqual({ success: true });
    const [socket] = fake.sockets;
    expect(socket.opts).toMatchObject({ auth: { visitorToken: 'tok' }, transports: ['websocket', 'polling'], autoConnect: true });
    expect(socket.emitted).toEqual([['join-session', { sessionId: 's1' }]]);
    socket.fire('new-message', { sessionId: 's1' });
    expect(seen).toEqual([{ sessionId: 's1' }]);

    // The first connect is not a reconnect; the next one is.
    socket.fire('connect');
    socket.fire('connect');
    expect(onReconnect).toHaveBeenCalledTimes(1);
  });

  it('asks again when the server is busy starting the conversation (503), then gives its answer', async () => {
    vi.useFakeTimers();
    const answers = [
      new Response(JSON.stringify({ error: { message: 'Server busy, please retry' } }), { status: 503 }),
      new Response(JSON.stringify({ error: { message: 'Server busy, please retry' } }), { status: 503 }),
      Response.json({ sessionId: 's1', visitorToken: 't1' }),
    ];
    const fetch = vi.fn(async () => answers.shift() as Response);
    vi.stubGlobal('fetch', fetch);
    const res = httpTransport.startConversation({ botId: 'b1', message: 'hi' });
    await vi.runAllTimersAsync();
    await expect(res).resolves.toMatchObject({ ok: true, status: 200, body: { sessionId: 's1' } });
    expect(fetch).toHaveBeenCalledTimes(3);
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('tells of a connection the server refused for good, not of one that will be retried', async () => {
    const refused = vi.fn();
    httpTransport.connect('old-token', () => {}, refused);
    await vi.waitFor(() => expect(fake.sockets).toHaveLength(1));
    const [socket] = fake.sockets;
    socket.fire('connect_error', new Error('xhr poll error'));
    expect(refused).not.toHaveBeenCalled();
    socket.active = false; // socket.io-client: a CONNECT_ERROR from the server ends retrying
    socket.fire('connect_error', new Error('This conversation has expired'));
    expect(refused).toHaveBeenCalledTimes(1);
  });

  it('never connects a channel closed before its code arrived', async () => {
    const live = httpTransport.connect('tok', () => {});
    live.close();
    await vi.waitFor(() => expect(fake.sockets).toHaveLength(1));
    expect(fake.sockets[0].opts.autoConnect).toBe(false);
    await vi.waitFor(() => expect(fake.sockets[0].closed).toBe(true));
  });
});
