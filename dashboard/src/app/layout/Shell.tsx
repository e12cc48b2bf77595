import { Suspense, useEffect } from 'react';
import { Box, Burger, Drawer, Group, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { Outlet } from 'react-router';
import { VerifyEmailBanner } from '@/features/auth/components/VerifyEmailBanner';
import { UsageBanner } from '@/features/billing/components/UsageBanner';
import { loadBots } from '@/features/bots/stores/bots';
import { PageLoader } from '@/components/PageLoader';
import { Sidebar } from './Sidebar';

/** The sidebar turns into a slide-in drawer below this width (spec §9). */
export const SIDEBAR_BREAKPOINT_PX = 1024;
const SIDEBAR_WIDTH = 280;

/** The screen's chunk may still be on its way (see router.tsx): the sidebar stays meanwhile. */
const Screen = () => (
  <Suspense fallback={<PageLoader inline />}>
    <Outlet />
  </Suspense>
);

export function Shell() {
  const wide = useMediaQuery(`(min-width: ${SIDEBAR_BREAKPOINT_PX}px)`, true, { getInitialValueInEffect: false });
  const [opened, { toggle, close }] = useDisclosure(false);

  // The bot list (with the user's role on each) is kept across reloads, so every signed-in
  // page load refreshes it: a role changed by the owner must show on whatever screen the
  // member opens next, not only after a visit to the overview.
  useEffect(() => {
    void loadBots({ keepOnError: true });
  }, []);

  if (wide) {
    return (
      <Box style={{ display: 'flex', minHeight: '100vh' }}>
        <Box
          component="nav"
          w={SIDEBAR_WIDTH}
          style={{ flexShrink: 0, borderRight: '1px solid var(--mantine-color-gray-3)', height: '100vh', position: 'sticky', top: 0 }}
        >
          <Sidebar />
        </Box>
        <Box component="main" p="lg" style={{ flex: 1, minWidth: 0 }}>
          <VerifyEmailBanner />
          <UsageBanner />
          <Screen />
        </Box>
      </Box>
    );
  }

  // Drawer: closes on an outside click (its overlay), Escape, or after a link click.
  return (
    <Box mih="100vh">
      <Group h={56} px="md" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
        <Burger opened={opened} onClick={toggle} aria-label="Toggle navigation" size="sm" />
        <Text fw={800}>Parley</Text>
      </Group>
      <Drawer opened={opened} onClose={close} size={SIDEBAR_WIDTH} padding={0} withCloseButton={false} aria-label="Navigation">
        <Box h="100vh">
          <Sidebar onNavigate={close} />
        </Box>
      </Drawer>
      <Box component="main" p="md">
        <VerifyEmailBanner />
        <UsageBanner />
        <Screen />
      </Box>
    </Box>
  );
}
