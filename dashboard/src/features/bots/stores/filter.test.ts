import { describe, expect, it } from 'vitest';
import { bot } from '../../../../test-utils/fetch';
import type { Bot } from '../api/bots';
import { filterBots } from './filter';

const list = [
  bot('1', 'Zed', { status: 'inactive', lastActive: '2024-03-01T00:00:00Z' }),
  bot('2', 'alpha', { status: 'active', lastActive: '2024-05-01T00:00:00Z' }),
  bot('3', null, { status: 'active', lastActive: null }),
  bot('4', 'Beta', { status: 'inactive', lastActive: '2024-04-01T00:00:00Z' }),
] as Bot[];
const ids = (bs: Bot[]) => bs.map((b) => b._id);

describe('filterBots', () => {
  it('searches names case-insensitively', () => {
    expect(ids(filterBots(list, 'BET', 'all', 'name'))).toEqual(['4']);
    expect(filterBots(list, 'nothing', 'all', 'name')).toEqual([]);
  });
  it('filters by status', () => {
    expect(ids(filterBots(list, '', 'active', 'name'))).toEqual(['2', '3']);
    expect(ids(filterBots(list, '', 'inactive', 'name'))).toEqual(['4', '1']);
  });
  it('sorts by name (unnamed as Untitled Assistant), status (active first), date (newest first)', () => {
    expect(ids(filterBots(list, '', 'all', 'name'))).toEqual(['2', '4', '3', '1']);
    expect(ids(filterBots(list, '', 'all', 'status'))).toEqual(['2', '3', '4', '1']);
    expect(ids(filterBots(list, '', 'all', 'date'))).toEqual(['2', '4', '1', '3']);
  });
});
