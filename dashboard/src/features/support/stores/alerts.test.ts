import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountApi } from '@/features/settings/api/settings';
import { runSignOutResets } from '@/lib/sign-out';
import { alertSupportRequest, askNotificationPermission, forgetAlert, loadPushPreference, setPushNotifications } from './alerts';

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

afterEach(() => {
  hidden(false);
  setPushNotifications(true);
  vi.restoreAllMocks();
});

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

  it('neither notifies nor asks while the account has push notifications off', async () => {
    const prefs = { emailNotifications: true, pushNotifications: false, weeklyReports: true, securityAlerts: true };
    const read = vi.spyOn(accountApi, 'notifications').mockResolvedValue(prefs);
    await loadPushPreference();
    expect(read).toHaveBeenCalledTimes(1);
    const { shown } = stubNotification('granted');
    hidden(true);
    alertSupportRequest('v4', 'Vic', 'help');
    expect(shown).toHaveLength(0);
    const undecided = stubNotification('default');
    askNotificationPermission();
    expect(undecided.FakeNotification.requestPermission).not.toHaveBeenCalled();
    // Turned on again in Settings: the next request notifies.
    setPushNotifications(true);
    const again = stubNotification('granted');
    alertSupportRequest('v5', 'Vic', 'help');
    expect(again.shown).toHaveLength(1);
  });

  it('keeps the last known preference when it cannot be read', async () => {
    vi.spyOn(accountApi, 'notifications').mockRejectedValue(new Error('offline'));
    await loadPushPreference();
    const { shown } = stubNotification('granted');
    hidden(true);
    alertSupportRequest('v6', 'Vic', 'help');
    expect(shown).toHaveLength(1);
  });

  it('starts the next account on this tab from the default, with its requests alerting afresh', () => {
    setPushNotifications(false);
    const { shown } = stubNotification('granted');
    hidden(true);
    alertSupportRequest('v7', 'Vic', 'help');
    expect(shown).toHaveLength(0);
    runSignOutResets();
    // The same conversation asks again for the next agent signed in here: it alerts, push on.
    alertSupportRequest('v7', 'Vic', 'help');
    expect(shown).toHaveLength(1);
  });
});
