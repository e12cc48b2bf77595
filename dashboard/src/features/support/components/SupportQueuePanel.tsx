// The inbox's Support Queue: shown only when requests wait; each with a Take button for roles
// that may take (without `onTake` the queue is only shown).
import { Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { SupportRequest } from '../api/support';
import { timeOf } from './format';

export function SupportQueuePanel({ queue, onTake }: { queue: readonly SupportRequest[]; onTake?: (sessionId: string) => void }) {
  if (!queue.length) return null;
  return (
    <Paper withBorder p="sm" radius="md" bg="red.0" component="section" aria-label="Support Queue">
      <Group gap="xs" mb="xs">
        <Title order={5}>Support Queue ({queue.length})</Title>
      </Group>
      <Stack gap="xs">
        {queue.map((r) => (
          <Paper key={r.sessionId} p="xs" radius="sm" withBorder data-testid="queue-entry">
            <Group justify="space-between" wrap="nowrap" align="flex-start">
              <Stack gap={2} style={{ minWidth: 0 }}>
                <Text size="sm" fw={600} truncate>
                  {r.session.title || 'Customer Support Request'}
                </Text>
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {r.customerMessage || 'Requested human support'}
                </Text>
                <Group gap={6}>
                  <Text size="xs" c="dimmed">
                    {timeOf(r.timestamp)}
                  </Text>
                  {r.customerInfo.name && (
                    <Badge size="xs" variant="light">
                      {r.customerInfo.name}
                    </Badge>
                  )}
                </Group>
              </Stack>
              {onTake && (
                <Button size="xs" color="red" onClick={() => onTake(r.sessionId)} aria-label={`Take ${r.session.title || 'Customer Support Request'}`}>
                  Take
                </Button>
              )}
            </Group>
          </Paper>
        ))}
      </Stack>
    </Paper>
  );
}
