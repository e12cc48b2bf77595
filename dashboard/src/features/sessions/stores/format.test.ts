import { describe, expect, it } from 'vitest';
import { filterByTitle, messagePreview, relativeTime, sessionTitle, statusColour } from './format';

describe('session row helpers', () => {
  it("falls back to 'Chat' plus the last 6 characters of the id", () => {
    expect(sessionTitle({ _id: 'abcdef123456', title: null })).toBe('Chat 123456');
    expect(sessionTitle({ _id: 'abcdef123456', title: '  ' })).toBe('Chat 123456');
    expect(sessionTitle({ _id: 'abcdef123456', title: 'Refund question' })).toBe('Refund question');
  });

  it('previews 60 characters of the last message', () => {
    const long = 'x'.repeat(100);
    expect(messagePreview(long)).toBe(`${'x'.repeat(60)}...`);
    expect(messagePreview('y'.repeat(60))).toBe('y'.repeat(60));
    expect(messagePreview(null)).toBe('');
  });

  it("reads times as 'm', 'h' or 'd ago', and 'Invalid date' otherwise", () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(relativeTime('2026-01-10T11:55:00Z', now)).toBe('5m ago');
    expect(relativeTime('2026-01-10T12:00:00Z', now)).toBe('0m ago');
    expect(relativeTime('2026-01-10T09:00:00Z', now)).toBe('3h ago');
    expect(relativeTime('2026-01-07T11:00:00Z', now)).toBe('3d ago');
    expect(relativeTime('not a date', now)).toBe('Invalid date');
    expect(relativeTime(null, now)).toBe('Invalid date');
  });

  it('colours statuses and filters by the shown title', () => {
    expect([statusColour('resolved'), statusColour('pending'), statusColour('active')]).toEqual(['green', 'yellow', 'blue']);
    const list = [
      { _id: 'aaaaaa111111', title: 'Shipping delay' },
      { _id: 'bbbbbb222222', title: null },
    ];
    expect(filterByTitle(list, 'SHIP').map((s) => s._id)).toEqual(['aaaaaa111111']);
    expect(filterByTitle(list, '222222').map((s) => s._id)).toEqual(['bbbbbb222222']);
    expect(filterByTitle(list, ' ')).toHaveLength(2);
  });
});
