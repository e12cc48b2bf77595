import type { ReactElement, ReactNode } from 'react';
import type { Location } from 'react-router';
import { render as testingRender } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MemoryRouter, RouterProvider, useLocation } from 'react-router';
import { theme } from '@/app/theme';
import { AppRoutes } from '@/app/router';

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

/** Reports every location the app's router reaches. */
function LocationProbe({ onLocation }: { onLocation: (l: Location) => void }) {
  onLocation(useLocation());
  return null;
}

/**
 * The whole route table, starting at `path`, in a memory router set up as main.tsx sets up the
 * browser's. Returns `router.state.location`: where the app is now, to see where it ended up.
 */
export function renderApp(path: string) {
  let location: Location | null = null;
  const router = {
    state: {
      get location(): Location {
        if (!location) throw new Error('the app has not rendered yet');
        return location;
      },
    },
  };
  const result = testingRender(
    <Providers>
      <MemoryRouter initialEntries={[path]} useTransitions={false}>
        <AppRoutes />
        <LocationProbe onLocation={(l) => (location = l)} />
      </MemoryRouter>
    </Providers>,
  );
  return { router, ...result };
}
