// The Lead Insights panel: contact data, conversion this month and last month (leads captured
// in the month that are converted now), and where the leads came from.
import { Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { LeadStats, MonthConversion } from '../api/leads';
import { sourceLabel } from '../stores/format';

const rate = (m: MonthConversion) => (m.rate === null ? '-' : `${m.rate}%`);

function Line({ label, value }: { label: string; value: string | number }) {
  return (
    <Group justify="space-between" gap="xs">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600}>
        {value}
      </Text>
    </Group>
  );
}

/** Website Chat and Mobile App always; any other source that has leads after them. */
function sourceLines(stats: LeadStats): [string, number][] {
  const pct = (s: string) => stats.sources.find((x) => x.source === s)?.percent ?? 0;
  const others = stats.sources.filter((s) => s.source !== 'website_chat' && s.source !== 'mobile_app');
  return [
    ['Website Chat', pct('website_chat')],
    ['Mobile App', pct('mobile_app')],
    ...others.map((s): [string, number] => [sourceLabel(s.source).replace(/^./, (c) => c.toUpperCase()), s.percent]),
  ];
}

export function LeadInsights({ stats }: { stats: LeadStats }) {
  return (
    <Card withBorder padding="md" mt="md" data-testid="lead-insights">
      <Title order={4} mb="sm">
        Lead Insights
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
        <Stack gap={4}>
          <Text fw={600}>Contact Data</Text>
          <Line label="With Email" value={stats.withEmail} />
          <Line label="With Name" value={stats.withName} />
          <Line label="With Phone" value={stats.withPhone} />
        </Stack>
        <Stack gap={4}>
          <Text fw={600}>Conversion Rate</Text>
          <Line label="This Month" value={rate(stats.conversion.thisMonth)} />
          <Line label="Last Month" value={rate(stats.conversion.lastMonth)} />
        </Stack>
        <Stack gap={4}>
          <Text fw={600}>Lead Sources</Text>
          {sourceLines(stats).map(([label, percent]) => (
            <Line key={label} label={label} value={`${percent}%`} />
          ))}
        </Stack>
      </SimpleGrid>
    </Card>
  );
}
