// Menus and tooltips bring Popover and floating-ui (about 25 kB gzipped), which a screen does not
// need to draw. A part with them (the bot picker, a bot card's actions) is first drawn with the
// same buttons, without them; its full version is fetched as the user reaches for it (the pointer
// over it, a touch, the keyboard focus in it) and then takes the light one's place. The pointer
// still over it comes in again (a ScrollArea shows its scrollbar then), a button focused at that
// moment keeps the focus, and a menu button pressed before its menu arrived is
// pressed again on its twin (the menu opens, and gives the focus back to it when it closes), so
// what the user sees and can do stays as it was. It never arrives in the middle of a press: a
// button replaced between pointerdown and click would lose the click (a tap on a touch screen is
// both the reach and the press).
import { useCallback, useLayoutEffect, useRef, useState, type MouseEvent, type PointerEvent } from 'react';

/** The part's focusable elements in document order: the light and the full part have the same. */
const focusables = (root: HTMLElement | null) => [...(root?.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]') ?? [])];

/** Spread `intent` on the element around the part, and `ref` it; draw `full` once it is there.
 *  The light part marks its menu buttons with aria-haspopup, as their menus do. */
export function useDeferredPart<M>(load: () => Promise<M>) {
  const ref = useRef<HTMLDivElement>(null);
  const [full, setFull] = useState<M | null>(null);
  const focused = useRef(-1);
  const pressedMenu = useRef(-1);
  const fetching = useRef(false);
  const pressing = useRef(false);
  const arrived = useRef<M | null>(null);

  const show = useCallback(() => {
    if (pressing.current || !arrived.current) return;
    focused.current = focusables(ref.current).indexOf(document.activeElement as HTMLElement);
    setFull(() => arrived.current);
  }, []);

  // The same part always loads the same chunk: the first `load` serves.
  const want = useCallback(() => {
    if (fetching.current) return;
    fetching.current = true;
    load().then(
      (m) => {
        arrived.current = m;
        show();
      },
      // Fetched again at the next reach (a new release may have replaced the chunk: the
      // screen's own lazy loading reloads the page then); the light buttons keep working.
      () => {
        fetching.current = false;
      },
    );
  }, []);

  // What the light part had, its full twin takes: the focus, a press on a menu button, the
  // pointer (once the full part's own effects listen for it).
  useLayoutEffect(() => {
    if (!full) return;
    const twins = focusables(ref.current);
    if (focused.current >= 0) twins[focused.current]?.focus();
    if (pressedMenu.current >= 0) twins[pressedMenu.current]?.click();
    const root = ref.current;
    const timer = setTimeout(() => root?.matches(':hover') && root.dispatchEvent(new PointerEvent('pointerenter')));
    return () => clearTimeout(timer);
  }, [full]);

  const release = () => {
    pressing.current = false;
    show();
  };
  const intent = {
    onPointerEnter: want,
    onFocus: want,
    onPointerDownCapture: () => {
      pressing.current = true;
      want();
    },
    onClickCapture: (e: MouseEvent) => {
      // After the click's own handlers have run.
      setTimeout(release, 0);
      const menuButton = (e.target as Element).closest('[aria-haspopup]');
      if (!full && menuButton) pressedMenu.current = focusables(ref.current).indexOf(menuButton as HTMLElement);
    },
    onPointerCancelCapture: release,
    // A mouse button held down and dragged out of the part clicks nothing.
    onPointerLeave: (e: PointerEvent) => e.pointerType === 'mouse' && release(),
  };
  return { ref, intent, full };
}
