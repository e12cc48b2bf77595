// The real transport: fetch for the first message, socket.io-client for the live channel (same
// origin as the chat page; timings as the spec's live channel: reconnect 1-5 s, timeout 20 s).
//
// socket.io-client is about half the page's weight and a visitor who only looks never needs it,
// so it is a separate chunk, imported when a conversation starts (the first message, or a kept
// conversation restored on load). The import begins as the first message is posted, so the
// chunk downloads while the server works on the reply and is ready when the page goes live.

import type { Socket } from 'socket.io-client';
import { retryWhileBusy, withBusyRetry } from './busy';
import type { Live, Transport } from './controller';

const ACK_TIMEOUT_MS = 15_000;

let socketIo: Promise<typeof import('socket.io-client')> | null = null;

/** The socket.io-client chunk, fetched once; a failed fetch is tried again on the next call. */
function loadSocketIo() {
  socketIo ??= import('socket.io-client').catch((e: unknown) => {
    socketIo = null;
    throw e;
  });
  return socketIo;
}

export const httpTransport: Transport = {
  startConversation(body) {
    // Warm the live channel's code while the reply is computed; a failure shows up at connect.
    loadSocketIo().catch(() => {});
    // A busy server (503) saved nothing and started no conversation: asked again with backoff.
    return retryWhileBusy(async () => {
      const res = await fetch('/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        parsed = {};
      }
      return { ok: res.ok, status: res.status, body: parsed };
    }, (res) => res.status === 503);
  },

  connect(visitorToken, onReconnect, onRefused): Live {
    // The controller registers handlers and emits at once; they wait here for the socket. Handlers
    // are attached before the socket connects, so no event is missed, and socket.io buffers the
    // emits until it is connected, as it did when the socket was created synchronously.
    let closed = false;
    const socket: Promise<Socket> = loadSocketIo().then(({ io }) => {
      const s = io({
        auth: { visitorToken },
        transports: ['websocket', 'polling'],
        reconnectionDelay: 1000,
        reconnectionDelayMax: 5000,
        timeout: 20_000,
        // Closed while the chunk was loading: never connect at all.
        autoConnect: !closed,
      });
      // A join sent before the first connect gets its answer then; if connecting failed first,
      // that answer may have timed out meanwhile, so the first connect joins again too.
      let connectedOnce = false;
      let failedFirst = false;
      s.on('connect_error', () => {
        if (!connectedOnce) failedFirst = true;
        // Inactive after an error: the server refused the CONNECT itself, and no retry follows.
        if (!s.active) onRefused?.();
      });
      s.on('connect', () => {
        if (connectedOnce || failedFirst) onReconnect();
        connectedOnce = true;
      });
      return s;
    });
    // The rejection reaches the caller through emit; handlers have nobody else to tell.
    socket.catch(() => {});
    return {
      on: (event, handler) => {
        void socket.then(
          (s) => s.on(event, (payload: unknown) => handler((payload ?? {}) as Record<string, unknown>)),
          () => {},
        );
      },
      emit: (event, payload) =>
        socket.then((s) => withBusyRetry(() => s.timeout(ACK_TIMEOUT_MS).emitWithAck(event, payload))),
      close: () => {
        closed = true;
        void socket.then(
          (s) => s.close(),
          () => {},
        );
      },
    };
  },
};
