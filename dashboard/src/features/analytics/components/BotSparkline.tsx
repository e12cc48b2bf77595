// A bot card's week at a glance on /dashboard: conversations per day, drawn from the
// analytics call (loaded for all cards by the page). A plain SVG path (lib/sparkline.ts) with
// the look of @mantine/charts' Sparkline (monotone curve, fill fading downwards), which would
// bring Recharts, about 110 kB gzipped, onto the first screen for seven points.
import { useId } from 'react';
import { Box, Group, Skeleton, Text } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { sparklinePaths } from '../lib/sparkline';
import { analytics } from '../stores/analytics';

// Drawn in these units and stretched to the card's width (the stroke keeps its width).
const WIDTH = 100;
const HEIGHT = 36;
// A theme variable: set through style, since SVG presentation attributes do not resolve var().
const COLOR = 'var(--mantine-color-blue-filled)';

export function BotSparkline({ botId }: { botId: string }) {
  const points = useSnapshot(analytics).sparklines[botId];
  const fillId = `sparkline-fill-${useId().replace(/:/g, '')}`;
  if (!points) return <Skeleton h={HEIGHT} mt="sm" aria-label="Loading the week's conversations" />;
  const total = points.reduce((a, b) => a + b, 0);
  const { line, area } = sparklinePaths(points, WIDTH, HEIGHT);
  return (
    <Group gap="sm" mt="sm" wrap="nowrap" aria-label={`${total} conversations in the last 7 days`} data-testid="bot-sparkline">
      <Box style={{ flex: 1, minWidth: 0 }}>
        <svg width="100%" height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" style={{ display: 'block' }}>
          <defs>
            <linearGradient id={fillId} x1="0" y1="0" x2="0" y2="1">
              <stop offset="0%" style={{ stopColor: COLOR, stopOpacity: 0.4 }} />
              <stop offset="100%" style={{ stopColor: COLOR, stopOpacity: 0.01 }} />
            </linearGradient>
          </defs>
          <path d={area} fill={`url(#${fillId})`} stroke="none" />
          <path d={line} fill="none" strokeWidth={1.5} vectorEffect="non-scaling-stroke" style={{ stroke: COLOR }} />
        </svg>
      </Box>
      <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
        {total} in 7 days
      </Text>
    </Group>
  );
}
