// The Current Plan card: the plan in force, its price, and the three usage meters.
import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { PlansReply, Subscription, UsageReply } from '../api/billing';
import { priceFor, type Cycle } from '../stores/format';
import { UsageMeter } from './UsageMeter';

export function CurrentPlanCard({ subscription, usage, plans }: { subscription: Subscription; usage: UsageReply; plans: PlansReply }) {
  const plan = plans.plans.find((p) => p.id === subscription.planType);
  const cycle: Cycle = subscription.cycle === 'yearly' ? 'yearly' : 'monthly';
  const price = plan ? priceFor(plan, cycle, plans.currency) : null;
  return (
    <Card withBorder padding="lg" data-testid="current-plan">
      <Group justify="space-between" align="flex-start" mb="md">
        <Stack gap={2}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Current Plan
          </Text>
          <Group gap="xs">
            <Title order={3} data-testid="current-plan-name">
              {subscription.planName} Plan
            </Title>
            {subscription.planType !== 'free' && <Badge variant="light">{cycle === 'yearly' ? 'Yearly' : 'Monthly'}</Badge>}
          </Group>
        </Stack>
        {price && (
          <Text fw={700} size="xl" data-testid="current-plan-price">
            {price.headline}
            <Text span size="sm" c="dimmed" fw={400}>
              {price.per}
            </Text>
          </Text>
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
        <UsageMeter label="Conversations" meter={usage.usage.conversations} testId="meter-conversations" />
        <UsageMeter label="Assistants" meter={usage.usage.bots} testId="meter-bots" />
        <UsageMeter label="Credits" meter={usage.usage.credits} testId="meter-credits" />
      </SimpleGrid>
    </Card>
  );
}
