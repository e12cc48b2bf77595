// The server refuses with "Server busy, please retry" when a queue on its live path is full;
// nothing was saved, so sending again is safe. Retried a few times with growing, jittered waits.

export const BUSY = 'Server busy, please retry';

type Ack = { success?: boolean; error?: string } | undefined;

const isBusy = (ack: unknown) => (ack as Ack)?.success === false && (ack as Ack)?.error === BUSY;

type Sleep = (ms: number) => Promise<unknown>;
const wait: Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Calls `send` while `again` says its answer was a busy refusal (at most `attempts` times). */
export async function retryWhileBusy<T>(send: () => Promise<T>, again: (answer: T) => boolean, attempts = 5, baseMs = 200, sleep: Sleep = wait): Promise<T> {
  let answer = await send();
  for (let i = 1; i < attempts && again(answer); i++) {
    await sleep(baseMs * 2 ** (i - 1) * (0.5 + Math.random()));
    answer = await send();
  }
  return answer;
}

/** Calls `send` until its ack is not a busy refusal (at most `attempts` times). */
export function withBusyRetry<T>(send: () => Promise<T>, attempts = 5, baseMs = 200, sleep: Sleep = wait): Promise<T> {
  return retryWhileBusy(send, isBusy, attempts, baseMs, sleep);
}
