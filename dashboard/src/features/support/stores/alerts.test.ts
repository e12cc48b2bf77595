import { afterEach, describe, expect, it, vi } from 'vitest';
import { alertSupportRequest, askNotificationPermission, forgetAlert } from './alerts';

function stubNotification(permission: NotificationPermission) {
  const shown: { title: string; body?: string; tag?: string }[] = [];
  class FakeNotification {
    static permission = permission;
    static requestPermission = vi.fn(async () => 'granted' as NotificationPermission);
    onclick: (() => void) | null = null;
    constructor(title: string, opts: NotificationOptions) {
      shown.push({ title, body: opts.body, tag: opts.tag });
    }
    close() {}
  }
  vi.stubGlobal('Notification', FakeNotification);
  return { shown, FakeNotification };
}
function hidden(value: boolean) {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
}

afterEach(() => hidden(false));

describe('new request alerts', () => {
  it('notifies once per session, only while the tab is hidden and permission is granted', () => {
    const { shown } = stubNotification('granted');
    hidden(false);
    alertSupportRequest('v1', 'Vic', 'help');
    expect(shown).toHaveLength(0);
    hidden(true);
    alertSupportRequest('v2', 'Vic', 'help');
    alertSupportRequest('v2', 'Vic', 'help again');
    expect(shown).toEqual([{ title: 'New Support Request', body: 'Vic: help', tag: 'support-v2' }]);
    forgetAlert('v2');
    alertSupportRequest('v2', null, '');
    expect(shown[1].body).toBe('A customer has requested human assistance');
  });

  it('does not notify without permission, and asks only while undecided', () => {
    const { shown, FakeNotification } = stubNotification('denied');
    hidden(true);
    alertSupportRequest('v3', 'Vic', 'help');
    expect(shown).toHaveLength(0);
    askNotificationPermission();
    expect(FakeNotification.requestPermission).not.toHaveBeenCalled();
    const undecided = stubNotification('default');
    askNotificationPermission();
    expect(undecided.FakeNotification.requestPermission).toHaveBeenCalledTimes(1);
  });
});
