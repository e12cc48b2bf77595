import { describe, expect, it } from 'vitest';
import { queryParams } from '../api/leads';
import {
  capitalise,
  capturedAt,
  emptyForm,
  filtersActive,
  formOf,
  hasContact,
  scoreColour,
  scoreOf,
  selectionLabel,
  sessionLabel,
  sourceKind,
  sourceLabel,
  toggleAll,
  toggleOne,
  validateLead,
} from './format';
import { lead } from './fixtures';

describe('lead cells', () => {
  it('colours the score at 80, 60 and 40; a missing score is 50', () => {
    expect([100, 80, 79, 60, 59, 40, 39, 0].map(scoreColour)).toEqual(['green', 'green', 'blue', 'blue', 'yellow', 'yellow', 'red', 'red']);
    expect(scoreOf({ leadScore: null })).toBe(50);
    expect(scoreOf({ leadScore: 12 })).toBe(12);
  });

  it('capitalises the priority and spaces the source', () => {
    expect(capitalise('urgent')).toBe('Urgent');
    expect(sourceLabel('website_chat')).toBe('website chat');
    expect(sourceLabel('mobile_app')).toBe('mobile app');
    expect([sourceKind('website_chat'), sourceKind('mobile_app'), sourceKind('manual')]).toEqual(['website', 'mobile', 'other']);
  });

  it('shows the captured time in en-US with a short month and two-digit hour and minute', () => {
    const shown = capturedAt('2026-11-23T19:05:00.000Z');
    const expected = new Date('2026-11-23T19:05:00.000Z').toLocaleString('en-US', {
      month: 'short',
      day: 'numeric',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });
    expect(shown).toBe(expected);
    expect(shown).toMatch(/^Nov \d{1,2}, 2026, \d{2}:\d{2} (AM|PM)$/);
    expect(capturedAt('garbage')).toBe('');
  });

  it("names the conversation by its title, or 'Session' and the id's last 6 characters", () => {
    expect(sessionLabel({ sessionId: 'abcdef-123456', sessionTitle: 'Pricing question' })).toBe('Pricing question');
    expect(sessionLabel({ sessionId: 'abcdef-123456', sessionTitle: null })).toBe('Session 123456');
    expect(sessionLabel({ sessionId: null, sessionTitle: null })).toBeNull();
  });

  it('has contact info with a name or an email', () => {
    expect(hasContact({ name: null, email: 'a@b.co' })).toBe(true);
    expect(hasContact({ name: ' ', email: null })).toBe(false);
  });
});

describe('filters and selection', () => {
  it('knows when search, status or priority narrow the list', () => {
    expect(filtersActive({ search: '', status: 'all', priority: 'all' })).toBe(false);
    expect(filtersActive({ search: ' x ', status: 'all', priority: 'all' })).toBe(true);
    expect(filtersActive({ search: '', status: 'lost', priority: 'all' })).toBe(true);
  });

  it('select-all selects the listed rows, or clears them when all are selected', () => {
    const rows = [lead('a'), lead('b')];
    expect(toggleAll([], rows)).toEqual(['a', 'b']);
    expect(toggleAll(['a'], rows)).toEqual(['a', 'b']);
    expect(toggleAll(['a', 'b', 'z'], rows)).toEqual(['z']);
    expect(toggleOne(['a'], 'a')).toEqual([]);
    expect(selectionLabel(1)).toBe('1 lead(s) selected');
    expect(selectionLabel(3)).toBe('3 lead(s) selected');
  });

  it("sends only the filters that narrow ('all' and blanks left out)", () => {
    expect(queryParams({ botId: 'all', q: '  ', status: 'all', priority: 'all', sort: 'newest' }).toString()).toBe('');
    expect(queryParams({ botId: 'b1', q: ' 50% ', status: 'new', priority: 'high', sort: 'name_desc' }).toString()).toBe(
      'botId=b1&q=50%25&status=new&priority=high&sort=name_desc',
    );
  });
});

describe('the lead forms', () => {
  it("needs a bot to create: 'Please select a bot'", () => {
    expect(validateLead(emptyForm(''), true)).toEqual({ botId: 'Please select a bot' });
    expect(validateLead(emptyForm('b1'), true)).toEqual({});
    expect(validateLead({ ...emptyForm(''), botId: undefined }, false)).toEqual({});
  });

  it('checks the email and the score as the server does', () => {
    const errors = validateLead({ ...emptyForm('b1'), email: 'nope', leadScore: 101 }, true);
    expect(errors.email).toBe('Please enter a valid email address');
    expect(errors.leadScore).toBe('Score must be a whole number from 0 to 100');
    expect(validateLead({ ...emptyForm('b1'), leadScore: Number.NaN }, true).leadScore).toBeDefined();
  });

  it('edits a lead with its tags as comma-separated text', () => {
    const f = formOf(lead('a', { tags: ['vip', 'trial'], leadScore: null, phone: '+1 2' }));
    expect(f.tags).toBe('vip, trial');
    expect(f.leadScore).toBe(50);
    expect(f.phone).toBe('+1 2');
  });
});
