// The real transport: fetch for the first message, socket.io-client for the live channel (same
// origin as the chat page; timings as the spec's live channel: reconnect 1-5 s, timeout 20 s).

import { io } from 'socket.io-client';
import { withBusyRetry } from './busy';
import type { Live, Transport } from './controller';

const ACK_TIMEOUT_MS = 15_000;

export const httpTransport: Transport = {
  async startConversation(body) {
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
  },

  connect(visitorToken, onReconnect): Live {
    const socket = io({
      auth: { visitorToken },
      transports: ['websocket', 'polling'],
      reconnectionDelay: 1000,
      reconnectionDelayMax: 5000,
      timeout: 20_000,
    });
    let connectedOnce = false;
    socket.on('connect', () => {
      if (connectedOnce) onReconnect();
      connectedOnce = true;
    });
    return {
      on: (event, handler) => {
        socket.on(event, (payload: unknown) => handler((payload ?? {}) as Record<string, unknown>));
      },
      emit: (event, payload) => withBusyRetry(() => socket.timeout(ACK_TIMEOUT_MS).emitWithAck(event, payload)),
      close: () => {
        socket.close();
      },
    };
  },
};
