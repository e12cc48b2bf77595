// The one live connection of this tab (Socket.IO): opened on first use while signed in, closed on
// sign-out. The token is read at every (re)connect, so a reconnect uses the current one. Features
// subscribe with `onLive` and hear `connect` again after every reconnect, where they re-join what
// they watch and reconcile with the server.
import { io, type Socket } from 'socket.io-client';
import { proxy } from 'valtio';
import { getToken } from '@/lib/api';
import { onSignOut } from '@/lib/sign-out';
import { withBusyRetry } from '@/lib/busy';

export const LIVE_OPTIONS = {
  transports: ['websocket', 'polling'],
  reconnectionDelay: 1000,
  reconnectionDelayMax: 5000,
  timeout: 20000,
} as const;

export interface LiveState {
  connected: boolean;
}

export const live = proxy<LiveState>({ connected: false });

let socket: Socket | null = null;

/** The tab's socket, created (and connected) on first call; null when signed out. */
export function liveSocket(): Socket | null {
  if (socket) return socket;
  if (!getToken()) return null;
  const s = io('/', {
    ...LIVE_OPTIONS,
    transports: [...LIVE_OPTIONS.transports],
    // A function: socket.io calls it at every connection attempt, so reconnects carry a fresh token.
    auth: (cb) => cb({ token: getToken() }),
  });
  s.on('connect', () => {
    live.connected = true;
  });
  s.on('disconnect', () => {
    live.connected = false;
  });
  s.on('connect_error', () => {
    live.connected = false;
    // Refused by the server (e.g. an expired token): socket.io stops trying. Try again later
    // with whatever token is current then; a token the API rejects signs out, which closes this.
    if (!s.active) {
      setTimeout(() => {
        if (socket === s && !s.connected && getToken()) s.connect();
      }, LIVE_OPTIONS.reconnectionDelayMax);
    }
  });
  socket = s;
  return s;
}

export function closeLive(): void {
  socket?.removeAllListeners();
  socket?.disconnect();
  socket = null;
  live.connected = false;
}

export type Ack = { success: boolean; error?: string } & Record<string, unknown>;

/** Emits with an acknowledgement; rejects with the server's words on `{success: false}`. */
export async function emitAck<T extends Ack = Ack>(event: string, payload: Record<string, unknown>, timeoutMs = 10000): Promise<T> {
  const s = liveSocket();
  if (!s) throw new Error('Not connected');
  const ack = (await withBusyRetry(() => s.timeout(timeoutMs).emitWithAck(event, payload))) as T;
  if (!ack || ack.success === false) throw new Error(ack?.error || 'Please try again');
  return ack;
}

/** Fire-and-forget emit (typing indicators). */
export function emitLive(event: string, payload: Record<string, unknown>): void {
  liveSocket()?.emit(event, payload);
}

/**
 * Listens to one event on the tab's socket; `connect` fires now if already connected, so a
 * subscriber needs no separate "first time" path. Returns the unsubscribe.
 */
export function onLive<P = unknown>(event: string, handler: (payload: P) => void): () => void {
  const s = liveSocket();
  if (!s) return () => {};
  const h = handler as (payload: unknown) => void;
  s.on(event, h);
  if (event === 'connect' && s.connected) queueMicrotask(() => h(undefined));
  return () => {
    s.off(event, h);
  };
}

onSignOut(closeLive);
