// Analytics (/stats): the dashboard overview for the user's bots, then the active bot's
// trends over the same period (charts from GET /api/bots/{id}/analytics).
import { lazy, Suspense } from 'react';
import { Skeleton, Stack } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';
import { Overview } from '@/features/overview/components/Overview';
import { overview } from '@/features/overview/stores/overview';

// Recharts is large: it loads with this screen, not with the landing page or sign-in.
const AnalyticsCharts = lazy(() => import('@/features/analytics/components/AnalyticsCharts').then((m) => ({ default: m.AnalyticsCharts })));

export function StatsRoute() {
  const bot = activeBot(useSnapshot(bots));
  const { period } = useSnapshot(overview);
  return (
    <>
      <PageHeader title="Analytics" subtitle={bot?.name ?? undefined} />
      <Stack gap="xl">
        <Overview />
        {bot && (
          <Suspense fallback={<Skeleton h={480} aria-label="Loading charts" />}>
            <AnalyticsCharts botId={bot._id} period={period} />
          </Suspense>
        )}
      </Stack>
    </>
  );
}
