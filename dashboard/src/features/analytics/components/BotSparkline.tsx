// A bot card's week at a glance on /dashboard: conversations per day, drawn from the
// analytics call (loaded for all cards by the page).
import { Sparkline } from '@mantine/charts';
import { Group, Skeleton, Text } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { analytics } from '../stores/analytics';

export function BotSparkline({ botId }: { botId: string }) {
  const points = useSnapshot(analytics).sparklines[botId];
  if (!points) return <Skeleton h={36} mt="sm" aria-label="Loading the week's conversations" />;
  const total = points.reduce((a, b) => a + b, 0);
  return (
    <Group gap="sm" mt="sm" wrap="nowrap" aria-label={`${total} conversations in the last 7 days`} data-testid="bot-sparkline">
      <Sparkline w="100%" h={36} data={[...points]} curveType="monotone" color="blue" fillOpacity={0.4} strokeWidth={1.5} style={{ flex: 1 }} />
      <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
        {total} in 7 days
      </Text>
    </Group>
  );
}
