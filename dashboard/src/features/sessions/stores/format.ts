// How a session row reads: title fallback, message preview, relative time, status colour.
import { foldedIncludes } from '@/lib/fold';
import type { ChatSession } from '../api/sessions';

export const PREVIEW_CHARS = 60;

/** The title, or 'Chat' plus the last 6 characters of the id. */
export function sessionTitle(s: Pick<ChatSession, '_id' | 'title'>): string {
  const title = s.title?.trim();
  return title ? title : `Chat ${s._id.slice(-6)}`;
}

/** The first 60 characters of the last message, with an ellipsis when cut. */
export function messagePreview(text: string | null | undefined, max = PREVIEW_CHARS): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}...` : t;
}

/** 'd ago', 'h ago' or 'm ago' from `now`; 'Invalid date' when the time cannot be read. */
export function relativeTime(value: string | number | Date | null | undefined, now: number = Date.now()): string {
  if (value === null || value === undefined || value === '') return 'Invalid date';
  const t = new Date(value).getTime();
  if (Number.isNaN(t)) return 'Invalid date';
  const minutes = Math.max(0, Math.floor((now - t) / 60000));
  const days = Math.floor(minutes / 1440);
  if (days > 0) return `${days}d ago`;
  const hours = Math.floor(minutes / 60);
  if (hours > 0) return `${hours}h ago`;
  return `${minutes}m ago`;
}

export const STATUS_COLOUR: Record<string, string> = {
  resolved: 'green',
  pending: 'yellow',
  active: 'blue',
};

export function statusColour(status: string): string {
  return STATUS_COLOUR[status] ?? 'gray';
}

/** The client-side title filter on the loaded page (any case, with or without accents, on the
 * shown title), as the server's search will answer. */
export function filterByTitle<S extends Pick<ChatSession, '_id' | 'title'>>(list: readonly S[], query: string): S[] {
  if (!query.trim()) return [...list];
  return list.filter((s) => foldedIncludes(sessionTitle(s), query));
}
