import { Component, Suspense, type ReactNode } from 'react';
import { render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { lazyScreen, RELOADED_FOR_CHUNK } from './lazy-screen';

beforeEach(() => sessionStorage.clear());

class Boundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    return this.state.failed ? <p>failed</p> : this.props.children;
  }
}

describe('lazyScreen', () => {
  it("renders the module's named export", async () => {
    const Hello = lazyScreen(async () => ({ Hello: () => <p>hello</p> }), 'Hello');
    render(
      <Suspense fallback="loading">
        <Hello />
      </Suspense>,
    );
    expect(await screen.findByText('hello')).toBeInTheDocument();
  });

  it('reloads the page once when a chunk is gone (a new release), not in a loop', async () => {
    const reload = vi.fn();
    const gone = () => Promise.reject(new TypeError('Failed to fetch dynamically imported module'));
    const First = lazyScreen(gone, 'then' as never, reload);
    const first = render(
      <Suspense fallback="loading">
        <First />
      </Suspense>,
    );
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(sessionStorage.getItem(RELOADED_FOR_CHUNK)).toBe('1');
    first.unmount();

    // After that reload, the same failure is real: it is thrown, not reloaded again.
    const Second = lazyScreen(gone, 'then' as never, reload);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    render(
      <Boundary>
        <Suspense fallback="loading">
          <Second />
        </Suspense>
      </Boundary>,
    );
    expect(await screen.findByText('failed')).toBeInTheDocument();
    expect(reload).toHaveBeenCalledTimes(1);
    errors.mockRestore();
  });
});
