import { useEffect, useState, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { PageLoader } from '@/components/PageLoader';
import { theme } from './theme';
import { boot } from './boot';

// Toasts: top-right, at most 20 at once (spec §9); durations are set per kind in lib/notify.
export function AppProvider({ children }: { children: ReactNode }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    void boot().finally(() => setReady(true));
  }, []);

  return (
    <MantineProvider theme={theme}>
      <Notifications position="top-right" limit={20} />
      {ready ? children : <PageLoader />}
    </MantineProvider>
  );
}
