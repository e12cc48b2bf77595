// My Bots' search, status filter and sort, all client side.
import { foldedIncludes } from '@/lib/fold';
import type { Bot } from '../api/bots';

export type StatusFilter = 'all' | 'active' | 'inactive';
export type BotSort = 'name' | 'status' | 'date';

export const displayName = (b: Pick<Bot, 'name'>) => b.name?.trim() || 'Untitled Assistant';

function time(s: string | null | undefined): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? -Infinity : t;
}

export function filterBots(list: readonly Bot[], search: string, status: StatusFilter, sort: BotSort): Bot[] {
  const out = list.filter((b) => foldedIncludes(b.name, search) && (status === 'all' || b.status === status));
  const byName = (a: Bot, b: Bot) => displayName(a).localeCompare(displayName(b));
  switch (sort) {
    case 'name':
      return out.sort(byName);
    case 'status': // active first
      return out.sort((a, b) => Number(b.status === 'active') - Number(a.status === 'active') || byName(a, b));
    case 'date': // lastActive, newest first
      return out.sort((a, b) => time(b.lastActive) - time(a.lastActive));
  }
}
