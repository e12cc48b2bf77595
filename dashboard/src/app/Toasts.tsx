// The toasts' container: Mantine's Notifications, with its transitions and portal (about 9 kB
// gzipped), is not needed to draw the first screen. It is fetched at the user's first press or key
// (toasts answer what the user does, so it is mounted before the first one and that one slides
// in as the rest do), or with a toast shown before any (one the page shows as it loads).
import { lazy, Suspense, useEffect, useState } from 'react';
import { notificationsStore, useNotifications } from '@mantine/notifications';
import { useOnceTrue } from '@/lib/use-once-true';

const Notifications = lazy(() => import('@mantine/notifications').then((m) => ({ default: m.Notifications })));

// Toasts: top-right, at most 20 at once (spec §9); durations are set per kind in lib/notify. The
// store queues by these from the start, as the container sets them when it mounts.
const POSITION = 'top-right';
const LIMIT = 20;
notificationsStore.updateState((state) => ({ ...state, limit: LIMIT, defaultPosition: POSITION }));

export function Toasts() {
  const shown = useNotifications().notifications.length > 0;
  const [pressed, setPressed] = useState(false);
  useEffect(() => {
    const press = () => setPressed(true);
    const events = ['pointerdown', 'keydown'] as const;
    for (const e of events) document.addEventListener(e, press, { capture: true, once: true });
    return () => {
      for (const e of events) document.removeEventListener(e, press, { capture: true });
    };
  }, []);
  return useOnceTrue(pressed || shown) ? (
    <Suspense fallback={null}>
      <Notifications position={POSITION} limit={LIMIT} />
    </Suspense>
  ) : null;
}
