// Chart rows from the analytics call: pure functions (no I/O), so the charts only draw and the
// mapping is tested on its own. Figures stay as the server computed them; a rate with nothing
// to divide by is null (a gap in the line), never 0.
import type { BotAnalytics, Bucket } from '../api/analytics';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The browser's time zone for the analytics call: its IANA name (`Europe/Paris`), so days
 * follow the clock changes, or, where the browser names none, its UTC offset now.
 */
export function viewerZone(date: Date = new Date(), named: () => string | undefined = browserZoneName): string {
  const name = named();
  return name && /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(name) ? name : utcOffset(date);
}

function browserZoneName(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * The browser's UTC offset now, as the server takes it (`+02:00`, `-05:30`), rounded to the
 * quarter hour every real offset is a multiple of.
 */
export function utcOffset(date: Date = new Date()): string {
  const minutes = Math.round(-date.getTimezoneOffset() / 15) * 15;
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * The axis label of a bucket, read from its local start as the server wrote it (so it does not
 * depend on the browser's own zone): `14:00` for hours, `Nov 25` for days.
 */
export function bucketLabel(start: string, bucket: 'hour' | 'day'): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(start);
  if (!m) return start;
  const [, , month, day, hour, minute] = m;
  if (bucket === 'hour') return `${hour}:${minute}`;
  return `${MONTHS[Number(month) - 1] ?? month} ${Number(day)}`;
}

const percent = (part: number, whole: number): number | null => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : null);

export interface VolumeRow {
  label: string;
  Conversations: number;
  Visitor: number;
  Bot: number;
  Agent: number;
}

export interface RateRow {
  label: string;
  /** Share of the bucket's conversations that asked for a person, percent. */
  'Handoff rate': number | null;
  /** Resolutions against the bucket's requests for a person, percent (a request resolved
   * the next day counts on that day, so a day may pass 100). */
  'Resolution rate': number | null;
}

export interface ResponseRow {
  label: string;
  Median: number | null;
  P90: number | null;
}

export interface CsatRow {
  label: string;
  CSAT: number | null;
  Ratings: number;
}

const label = (data: BotAnalytics) => (b: Bucket) => bucketLabel(b.start, data.bucket);

export function volumeSeries(data: BotAnalytics): VolumeRow[] {
  const l = label(data);
  return data.buckets.map((b) => ({
    label: l(b),
    Conversations: b.conversations,
    Visitor: b.messages.visitor,
    Bot: b.messages.bot,
    Agent: b.messages.agent,
  }));
}

export function rateSeries(data: BotAnalytics): RateRow[] {
  const l = label(data);
  return data.buckets.map((b) => ({
    label: l(b),
    'Handoff rate': percent(b.handoffs, b.conversations),
    'Resolution rate': percent(b.resolved, b.handoffs),
  }));
}

export function responseSeries(data: BotAnalytics): ResponseRow[] {
  const l = label(data);
  return data.buckets.map((b) => ({ label: l(b), Median: b.firstResponse.medianSeconds, P90: b.firstResponse.p90Seconds }));
}

export function csatSeries(data: BotAnalytics): CsatRow[] {
  const l = label(data);
  return data.buckets.map((b) => ({ label: l(b), CSAT: b.csat.average, Ratings: b.csat.count }));
}

/** Conversations per bucket: the bot card's sparkline. */
export function sparkline(data: BotAnalytics): number[] {
  return data.buckets.map((b) => b.conversations);
}

/** Which charts have anything to draw (each shows its own empty state otherwise). */
export function hasData(data: BotAnalytics) {
  const t = data.totals;
  return {
    volume: t.conversations + t.messages.visitor + t.messages.bot + t.messages.agent > 0,
    rates: t.conversations > 0,
    response: t.firstResponse.answered > 0,
    csat: t.csat.count > 0,
  };
}

/** `42 s`, `3.5 min`, `1.2 h` for a response time in seconds. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  if (seconds < 3600) return `${Math.round(seconds / 6) / 10} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}
