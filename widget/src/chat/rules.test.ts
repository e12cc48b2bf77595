import { describe, expect, it } from 'vitest';
import { contactOrNull, counter, leadDue, sendable, showHandoffButton } from './rules';

describe('visitor chat rules', () => {
  it('sends trimmed text, never empty, never while a reply is pending', () => {
    expect(sendable('  hello \n', false, 500)).toBe('hello');
    expect(sendable('   \n ', false, 500)).toBeNull();
    expect(sendable('hello', true, 500)).toBeNull();
    // Over the maximum nothing is sent; characters, not UTF-16 units, and surrounding spaces don't count.
    expect(sendable('hello!', false, 5)).toBeNull();
    expect(sendable(' héllo ', false, 5)).toBe('héllo');
    expect(sendable('😀😀', false, 2)).toBe('😀😀');
  });

  it('offers a human after 4 messages or 10 seconds, only when handover is on and nothing is under way', () => {
    const base = { enableHandover: true, supportRequested: false, agentConnected: false, messageCount: 0, elapsedMs: 0 };
    expect(showHandoffButton(base)).toBe(false);
    expect(showHandoffButton({ ...base, elapsedMs: 9_999 })).toBe(false);
    expect(showHandoffButton({ ...base, elapsedMs: 10_000 })).toBe(true);
    expect(showHandoffButton({ ...base, messageCount: 4 })).toBe(true);
    expect(showHandoffButton({ ...base, offered: true })).toBe(true);
    expect(showHandoffButton({ ...base, offered: true, enableHandover: false })).toBe(false);
    expect(showHandoffButton({ ...base, messageCount: 4, enableHandover: false })).toBe(false);
    expect(showHandoffButton({ ...base, messageCount: 4, supportRequested: true })).toBe(false);
    expect(showHandoffButton({ ...base, messageCount: 4, agentConnected: true })).toBe(false);
  });

  it('asks for details once more than 4 messages exist, unless given, dismissed or a reply is pending', () => {
    const base = { enableLeadCapture: true, leadGiven: false, leadDismissed: false, messageCount: 5, pending: false };
    expect(leadDue(base)).toBe(true);
    expect(leadDue({ ...base, messageCount: 4 })).toBe(false);
    expect(leadDue({ ...base, leadGiven: true })).toBe(false);
    expect(leadDue({ ...base, leadDismissed: true })).toBe(false);
    expect(leadDue({ ...base, pending: true })).toBe(false);
    expect(leadDue({ ...base, enableLeadCapture: false })).toBe(false);
  });

  it('keeps only filled contact fields, and nothing without a name, email or phone', () => {
    expect(contactOrNull({ name: ' Ann ', email: '', phone: '', company: 'Acme' })).toEqual({ name: 'Ann', company: 'Acme' });
    expect(contactOrNull({ name: '', email: '', phone: '', company: 'Acme' })).toBeNull();
  });

  it('counts characters against the maximum and flags going over', () => {
    expect(counter('héllo', 500)).toEqual({ label: '5/500', over: false });
    expect(counter('x'.repeat(501), 500)).toEqual({ label: '501/500', over: true });
  });
});
