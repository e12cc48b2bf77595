// Analytics (/stats): the dashboard overview for the user's bots, then the active bot's
// trends over the same period (charts from GET /api/bots/{id}/analytics).
import { Stack } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { activeBot, bots } from '@/features/bots/stores/bots';
import { PageHeader } from '@/components/PageHeader';
import { AnalyticsCharts } from '@/features/analytics/components/AnalyticsCharts';
import { Overview } from '@/features/overview/components/Overview';
import { overview } from '@/features/overview/stores/overview';

export function StatsRoute() {
  const bot = activeBot(useSnapshot(bots));
  const { period } = useSnapshot(overview);
  return (
    <>
      <PageHeader title="Analytics" subtitle={bot?.name ?? undefined} />
      <Stack gap="xl">
        <Overview />
        {bot && <AnalyticsCharts botId={bot._id} period={period} />}
      </Stack>
    </>
  );
}
