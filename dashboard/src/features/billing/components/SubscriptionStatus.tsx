// Subscription Status: Active or Inactive (spec 2 §4), the renewal date and days left, or the
// date the plan ends (cancelled, or a failed renewal's grace).
import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { Subscription } from '../api/billing';
import { dateText } from '../stores/format';

export function SubscriptionStatus({ subscription: s, children }: { subscription: Subscription; children?: React.ReactNode }) {
  const active = s.status === 'active';
  const days = `${s.daysUntilRenewal} day${s.daysUntilRenewal === 1 ? '' : 's'}`;
  let line: string;
  if (s.status === 'past_due' && s.endsAt) {
    line = `Your last payment failed. ${s.planName} stays until ${dateText(s.endsAt)} while the payment is retried; then the account moves to Free.`;
  } else if (s.cancelAtPeriodEnd || s.endsAt) {
    line = `Your ${s.planName} plan ends on ${dateText(s.endsAt ?? s.currentPeriodEnd)}; then the account moves to Free.`;
  } else if (s.planType === 'free') {
    line = `Usage resets on ${dateText(s.currentPeriodEnd)} (${days} left).`;
  } else {
    line = `Renews on ${dateText(s.currentPeriodEnd)} (${days} left).`;
  }
  return (
    <Card withBorder padding="lg" data-testid="subscription-status">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Subscription Status</Title>
        <Badge color={active ? 'green' : 'gray'} data-testid="subscription-state">
          {active ? 'Active' : 'Inactive'}
        </Badge>
      </Group>
      <Stack gap={4}>
        <Text size="sm">
          {s.planName} plan{s.planType === 'free' ? '' : `, billed ${s.cycle === 'yearly' ? 'yearly' : 'monthly'}`}
        </Text>
        <Text size="sm" c="dimmed" data-testid="subscription-line">
          {line}
        </Text>
        {children}
      </Stack>
    </Card>
  );
}
