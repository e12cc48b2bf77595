// One usage meter of the Current Plan card: used of total, coloured as it nears the limit.
import { Group, Progress, Stack, Text } from '@mantine/core';
import type { Meter } from '../api/billing';
import { meterColor, meterPercent, meterText } from '../stores/format';

export function UsageMeter({ label, meter, testId }: { label: string; meter: Meter; testId: string }) {
  const color = meterColor(meter);
  return (
    <Stack gap={4} data-testid={testId} data-colour={color}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <Text size="sm" c="dimmed" data-testid={`${testId}-text`}>
          {meterText(meter)}
        </Text>
      </Group>
      <Progress value={meterPercent(meter)} color={color} size="md" aria-label={`${label} used`} />
    </Stack>
  );
}
