import { describe, expect, it } from 'vitest';
import { BUSY, withBusyRetry } from './busy';

describe('withBusyRetry', () => {
  it('sends again while the server is busy, with growing waits', async () => {
    const waits: number[] = [];
    let calls = 0;
    const ack = await withBusyRetry(
      async () => (++calls < 3 ? { success: false, error: BUSY } : { success: true }),
      5,
      100,
      async (ms) => void waits.push(ms),
    );
    expect(ack).toEqual({ success: true });
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
    expect(waits[1]).toBeGreaterThan(waits[0] * 0.6);
  });

  it('gives up after its attempts and returns the last refusal', async () => {
    let calls = 0;
    const ack = await withBusyRetry(async () => (calls++, { success: false, error: BUSY }), 3, 1, async () => {});
    expect(calls).toBe(3);
    expect(ack).toEqual({ success: false, error: BUSY });
  });

  it('does not retry other refusals', async () => {
    let calls = 0;
    const ack = await withBusyRetry(async () => (calls++, { success: false, error: 'Message cannot be empty' }), 5, 1, async () => {});
    expect(calls).toBe(1);
    expect(ack).toEqual({ success: false, error: 'Message cannot be empty' });
  });
});
