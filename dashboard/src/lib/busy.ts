// The server refuses with "Server busy, please retry" when a queue on its live path is full;
// nothing was saved, so sending again is safe. Retried a few times with growing, jittered waits.

export const BUSY = 'Server busy, please retry';

type Ack = { success?: boolean; error?: string } | undefined;

const isBusy = (ack: unknown) => (ack as Ack)?.success === false && (ack as Ack)?.error === BUSY;

/** Calls `send` until its ack is not a busy refusal (at most `attempts` times). */
export async function withBusyRetry<T>(send: () => Promise<T>, attempts = 5, baseMs = 200, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<T> {
  let ack = await send();
  for (let i = 1; i < attempts && isBusy(ack); i++) {
    await sleep(baseMs * 2 ** (i - 1) * (0.5 + Math.random()));
    ack = await send();
  }
  return ack;
}
