import { lazy, type ComponentType } from 'react';

export const RELOADED_FOR_CHUNK = 'parley:reloaded-for-chunk';

/**
 * A screen as a React.lazy component: `load` imports its module (a chunk of its own), `name` is
 * the module's named export (React.lazy wants a default one).
 *
 * A tab opened before a new release asks for chunk names that the release replaced: the import
 * fails, and the page is loaded afresh once, since the new index.html names the new chunks. A
 * second failure in a row is a real one and is thrown like any other render error.
 */
export function lazyScreen<M>(load: () => Promise<M>, name: keyof M, reload = () => window.location.reload()) {
  return lazy(() =>
    load().then(
      (m) => {
        sessionStorage.removeItem(RELOADED_FOR_CHUNK);
        return { default: m[name] as ComponentType };
      },
      (e: unknown) => {
        if (sessionStorage.getItem(RELOADED_FOR_CHUNK)) throw e;
        sessionStorage.setItem(RELOADED_FOR_CHUNK, '1');
        reload();
        return new Promise<never>(() => {}); // the reload takes over
      },
    ),
  );
}
