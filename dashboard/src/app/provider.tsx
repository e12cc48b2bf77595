import { useEffect, useState, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { PageLoader } from '@/components/PageLoader';
import { theme } from './theme';
import { boot } from './boot';
import { Toasts } from './Toasts';

export function AppProvider({ children }: { children: ReactNode }) {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    void boot().finally(() => setReady(true));
  }, []);

  return (
    <MantineProvider theme={theme}>
      <Toasts />
      {ready ? children : <PageLoader />}
    </MantineProvider>
  );
}
