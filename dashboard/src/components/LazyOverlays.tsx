// A dialog or drawer that a screen only may open (a confirmation, the narrow layout's navigation)
// fetches Modal/Drawer when first opened, not with the screen. Once loaded it stays mounted, so it
// animates closed as before.
import { lazy, Suspense } from 'react';
import type { DrawerProps, ModalProps } from '@mantine/core';
import { useOnceTrue } from '@/lib/use-once-true';

const Modal = lazy(() => import('./overlays').then((m) => ({ default: m.Modal })));
const Drawer = lazy(() => import('./overlays').then((m) => ({ default: m.Drawer })));

export function LazyModal(props: ModalProps) {
  const used = useOnceTrue(props.opened);
  return used ? (
    <Suspense fallback={null}>
      <Modal {...props} />
    </Suspense>
  ) : null;
}

export function LazyDrawer(props: DrawerProps) {
  const used = useOnceTrue(props.opened);
  return used ? (
    <Suspense fallback={null}>
      <Drawer {...props} />
    </Suspense>
  ) : null;
}
