import type { ReactElement, ReactNode } from 'react';
import { render as testingRender } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MemoryRouter, RouterProvider } from 'react-router';
import { theme } from '@/app/theme';
import { createTestRouter } from '@/app/router';

function Providers({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} env="test">
      <Notifications position="top-right" limit={20} />
      {children}
    </MantineProvider>
  );
}

/** A component inside Mantine (test env: no transitions) and a memory router at `route`. */
export function render(ui: ReactElement, { route = '/' }: { route?: string } = {}) {
  return testingRender(
    <Providers>
      <MemoryRouter initialEntries={[route]}>{ui}</MemoryRouter>
    </Providers>,
  );
}

/** A router of the test's own (to see where a component navigates). */
export function renderRouter(router: Parameters<typeof RouterProvider>[0]['router']) {
  return testingRender(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
}

/** The whole route table, starting at `path`; returns the router to inspect where it ended up. */
export function renderApp(path: string) {
  const router = createTestRouter([path]);
  const result = testingRender(
    <Providers>
      <RouterProvider router={router} />
    </Providers>,
  );
  return { router, ...result };
}
