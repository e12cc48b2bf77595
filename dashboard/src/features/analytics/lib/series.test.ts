import { describe, expect, it } from 'vitest';
import type { BotAnalytics, Bucket, Figures } from '../api/analytics';
import { bucketLabel, csatSeries, formatDuration, hasData, rateSeries, responseSeries, sparkline, utcOffset, viewerZone, volumeSeries } from './series';

const zero = (): Figures => ({
  conversations: 0,
  messages: { visitor: 0, bot: 0, agent: 0 },
  handoffs: 0,
  resolved: 0,
  firstResponse: { medianSeconds: null, p90Seconds: null, answered: 0 },
  csat: { average: null, count: 0 },
  refused: 0,
  leads: 0,
});

const bucket = (start: string, over: Partial<Figures> = {}): Bucket => ({ ...zero(), ...over, start });

const data = (buckets: Bucket[], bucketKind: 'hour' | 'day' = 'day', totals: Partial<Figures> = {}): BotAnalytics => ({
  botId: 'b1',
  period: '7d',
  tz: '+02:00',
  bucket: bucketKind,
  from: '2026-11-18T22:00:00.000Z',
  to: '2026-11-25T22:00:00.000Z',
  buckets,
  totals: { ...zero(), ...totals },
  topUnanswered: [],
});

describe('analytics chart mapping', () => {
  it('labels days and hours from the server-local start, whatever the browser zone', () => {
    expect(bucketLabel('2026-11-25T00:00:00+02:00', 'day')).toBe('Nov 25');
    expect(bucketLabel('2026-01-05T00:00:00-05:00', 'day')).toBe('Jan 5');
    expect(bucketLabel('2026-11-25T15:00:00+05:30', 'hour')).toBe('15:00');
    expect(bucketLabel('garbage', 'day')).toBe('garbage');
  });

  it('sends the browser offset in quarter hours, east positive', () => {
    const at = (offsetMinutes: number) => ({ getTimezoneOffset: () => offsetMinutes }) as Date;
    expect(utcOffset(at(-120))).toBe('+02:00');
    expect(utcOffset(at(300))).toBe('-05:00');
    expect(utcOffset(at(-330))).toBe('+05:30');
    expect(utcOffset(at(0))).toBe('+00:00');
  });

  it('sends the browser zone by name, and its offset where it names none', () => {
    const at = (offsetMinutes: number) => ({ getTimezoneOffset: () => offsetMinutes }) as Date;
    expect(viewerZone(at(-60), () => 'Europe/Paris')).toBe('Europe/Paris');
    expect(viewerZone(at(300), () => 'America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
    expect(viewerZone(at(300), () => undefined)).toBe('-05:00');
    expect(viewerZone(at(-330), () => 'not a zone!')).toBe('+05:30');
  });

  it('maps volumes per bucket by author', () => {
    const d = data([
      bucket('2026-11-24T00:00:00+02:00', { conversations: 3, messages: { visitor: 5, bot: 4, agent: 1 } }),
      bucket('2026-11-25T00:00:00+02:00'),
    ]);
    expect(volumeSeries(d)).toEqual([
      { label: 'Nov 24', Conversations: 3, Visitor: 5, Bot: 4, Agent: 1 },
      { label: 'Nov 25', Conversations: 0, Visitor: 0, Bot: 0, Agent: 0 },
    ]);
    expect(sparkline(d)).toEqual([3, 0]);
  });

  it('leaves a gap, not a zero, where a rate has nothing to divide by', () => {
    const d = data([
      bucket('2026-11-24T00:00:00+02:00', { conversations: 8, handoffs: 2, resolved: 1 }),
      bucket('2026-11-25T00:00:00+02:00', { conversations: 3 }),
      bucket('2026-11-26T00:00:00+02:00', { conversations: 0, handoffs: 0, resolved: 2 }),
      bucket('2026-11-27T00:00:00+02:00', { conversations: 3, handoffs: 1 }),
    ]);
    expect(rateSeries(d).map((r) => [r['Handoff rate'], r['Resolution rate']])).toEqual([
      [25, 50],
      [0, null],
      [null, null],
      [33.3, 0],
    ]);
  });

  it('keeps percentiles and satisfaction as computed, null where nothing was measured', () => {
    const d = data([
      bucket('2026-11-24T10:00:00+02:00', { firstResponse: { medianSeconds: 20, p90Seconds: 100, answered: 4 }, csat: { average: 4.5, count: 2 } }),
      bucket('2026-11-24T11:00:00+02:00'),
    ], 'hour');
    expect(responseSeries(d)).toEqual([
      { label: '10:00', Median: 20, P90: 100 },
      { label: '11:00', Median: null, P90: null },
    ]);
    expect(csatSeries(d)).toEqual([
      { label: '10:00', CSAT: 4.5, Ratings: 2 },
      { label: '11:00', CSAT: null, Ratings: 0 },
    ]);
  });

  it('says which charts have something to draw', () => {
    expect(hasData(data([]))).toEqual({ volume: false, rates: false, response: false, csat: false });
    const some = hasData(data([], 'day', { conversations: 1, firstResponse: { medianSeconds: 3, p90Seconds: 3, answered: 1 } }));
    expect(some).toEqual({ volume: true, rates: true, response: true, csat: false });
    // Messages alone (a conversation started before the period) still draw the volume chart.
    expect(hasData(data([], 'day', { messages: { visitor: 2, bot: 0, agent: 0 } })).volume).toBe(true);
  });

  it('formats response times for tooltips', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(210)).toBe('3.5 min');
    expect(formatDuration(4320)).toBe('1.2 h');
  });
});
