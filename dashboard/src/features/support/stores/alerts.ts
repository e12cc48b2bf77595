// Getting a busy agent's attention for a new support request: a short beep (Web Audio) and, when
// the tab is hidden and the account's "Push Notifications" preference is on, a browser
// notification. Permission is asked on a user gesture only, once; each session alerts at most
// once and the beep at most every 2 s.
import { accountApi } from '@/features/settings/api/settings';
import { onSignOut } from '@/lib/sign-out';

const alerted = new Set<string>();
let lastBeep = 0;
let audio: AudioContext | null = null;
/** The server's default for a new account, used until the signed-in account's is read. */
const PUSH_DEFAULT = true;
/** The account's preference. */
let pushEnabled = PUSH_DEFAULT;

/** Called when the preference is read or saved (the Settings screen), so it applies at once. */
export function setPushNotifications(on: boolean): void {
  pushEnabled = on;
}

/** Reads the preference when a support screen opens. On failure the last known value stays. */
export async function loadPushPreference(): Promise<void> {
  try {
    setPushNotifications((await accountApi.notifications()).pushNotifications);
  } catch {
    // Offline or signed out: the beep and toasts still work.
  }
}

function beep(): void {
  const now = Date.now();
  if (now - lastBeep < 2000) return;
  lastBeep = now;
  try {
    const Ctx = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctx) return;
    audio ??= new Ctx();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = 'sine';
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.25);
  } catch {
    // No audio (autoplay policy, no device): the toast still shows.
  }
}

/** Call from a click or key handler: browsers only ask for permission on a user gesture. */
export function askNotificationPermission(): void {
  if (!pushEnabled) return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'default') return;
  void Notification.requestPermission().catch(() => undefined);
  // Let the audio context start on this gesture too (autoplay policy).
  void audio?.resume().catch(() => undefined);
}

export function alertSupportRequest(sessionId: string, who: string | null | undefined, text: string): void {
  if (alerted.has(sessionId)) return;
  alerted.add(sessionId);
  beep();
  if (!pushEnabled || typeof document === 'undefined' || !document.hidden) return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  try {
    const n = new Notification('New Support Request', {
      body: who ? `${who}: ${text || 'Requested human support'}` : text || 'A customer has requested human assistance',
      tag: `support-${sessionId}`,
    });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  } catch {
    // Some browsers only allow notifications from a service worker: the beep and toast remain.
  }
}

// The next account to sign in on this tab starts from the default, not the last account's choice,
// and its support requests alert afresh.
onSignOut(() => {
  pushEnabled = PUSH_DEFAULT;
  alerted.clear();
});

/** A session that asks again after being resolved may alert again. */
export function forgetAlert(sessionId: string): void {
  alerted.delete(sessionId);
}
