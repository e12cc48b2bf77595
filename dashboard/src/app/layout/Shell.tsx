import { lazy, Suspense, useEffect } from 'react';
import { Box, Burger, Group, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { Outlet } from 'react-router';
import { useSnapshot } from 'valtio';
import { session } from '@/features/auth/stores/session';
import { planNearLimits } from '@/features/billing/stores/format';
import { loadBots } from '@/features/bots/stores/bots';
import { LazyDrawer } from '@/components/LazyOverlays';
import { PageLoader } from '@/components/PageLoader';
import { Sidebar } from './Sidebar';

/** The sidebar turns into a slide-in drawer below this width (spec §9). */
export const SIDEBAR_BREAKPOINT_PX = 1024;
const SIDEBAR_WIDTH = 280;

// The banners draw only for an unverified address or a plan near its limits: they are fetched then.
const VerifyEmailBanner = lazy(() =>
  import('@/features/auth/components/VerifyEmailBanner').then((m) => ({ default: m.VerifyEmailBanner })),
);
const UsageBanner = lazy(() => import('@/features/billing/components/UsageBanner').then((m) => ({ default: m.UsageBanner })));

function Banners() {
  const { user, platform } = useSnapshot(session);
  return (
    <Suspense fallback={null}>
      {user?.emailVerified === false && <VerifyEmailBanner />}
      {platform[0] && planNearLimits(platform[0]).length > 0 && <UsageBanner />}
    </Suspense>
  );
}

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
          <Banners />
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
      <LazyDrawer opened={opened} onClose={close} size={SIDEBAR_WIDTH} padding={0} withCloseButton={false} aria-label="Navigation">
        <Box h="100vh">
          <Sidebar onNavigate={close} />
        </Box>
      </LazyDrawer>
      <Box component="main" p="md">
        <Banners />
        <Screen />
      </Box>
    </Box>
  );
}
