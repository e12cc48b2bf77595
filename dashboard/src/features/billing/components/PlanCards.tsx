// The Monthly/Yearly toggle and the three plan cards: Pro marked Most Popular, the current plan
// marked, Upgrade and Downgrade, and Enterprise's Contact Sales as a mailto: link.
import { Badge, Button, Card, Group, List, SegmentedControl, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import type { Checkout, Plan, PlansReply, Subscription } from '../api/billing';
import { isUnlimited, planAction, priceFor, type Cycle } from '../stores/format';

export interface PlanChoice {
  plan: Plan;
  cycle: Cycle;
}

interface Props {
  plans: PlansReply;
  subscription: Subscription;
  checkout: Checkout;
  cycle: Cycle;
  onCycle: (c: Cycle) => void;
  onUpgrade: (choice: PlanChoice) => void;
  onDowngrade: (choice: PlanChoice) => void;
  busy: boolean;
}

function limitLine(n: number, one: string, many: string) {
  return isUnlimited(n) ? `Unlimited ${many.replace(' a month', '')}` : `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

export function PlanCards({ plans, subscription, checkout, cycle, onCycle, onUpgrade, onDowngrade, busy }: Props) {
  const current = subscription.planType;
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={3}>Plans</Title>
        <Group gap="xs">
          <SegmentedControl
            aria-label="Billing cycle"
            value={cycle}
            onChange={(v) => onCycle(v === 'yearly' ? 'yearly' : 'monthly')}
            data={[
              { label: 'Monthly', value: 'monthly' },
              { label: 'Yearly', value: 'yearly' },
            ]}
          />
          {plans.yearlyDiscountPercent > 0 && (
            <Badge color="green" variant="light" data-testid="yearly-saving">
              Save {plans.yearlyDiscountPercent}%
            </Badge>
          )}
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
        {plans.plans.map((plan) => {
          const action = planAction(plans.plans, current, plan);
          const price = priceFor(plan, cycle, plans.currency);
          // Checkout starts a paid plan from Free; switching a running plan's cycle is not
          // offered (the server refuses a second subscription), so the current plan stays marked.
          return (
            <Card
              key={plan.id}
              withBorder
              padding="lg"
              data-testid={`plan-${plan.id}`}
              style={plan.popular ? { borderColor: 'var(--mantine-color-blue-6)', borderWidth: 2 } : undefined}
            >
              <Group justify="space-between" mb="xs">
                <Text fw={700} size="lg">
                  {plan.name}
                </Text>
                <Group gap={4}>
                  {plan.popular && <Badge color="blue">Most Popular</Badge>}
                  {action === 'current' && (
                    <Badge color="green" variant="light" data-testid="current-badge">
                      Current Plan
                    </Badge>
                  )}
                </Group>
              </Group>
              <Text fw={800} size="xl" data-testid={`price-${plan.id}`}>
                {price.headline}
                <Text span size="sm" c="dimmed" fw={400}>
                  {price.per}
                </Text>
              </Text>
              <Text size="xs" c="dimmed" mih={18}>
                {price.billed ?? ''}
              </Text>
              <List spacing={4} size="sm" mt="sm" mb="md" icon={<IconCheck size={14} color="var(--mantine-color-green-6)" />}>
                {/* The plan's features name its conversations and assistants; credits are ours. */}
                {plan.features.map((f) => (
                  <List.Item key={f}>{f}</List.Item>
                ))}
                <List.Item>{limitLine(plan.creditsLimit, 'AI reply credit a month', 'AI reply credits a month')}</List.Item>
              </List>
              <div style={{ marginTop: 'auto' }}>
                {action === 'contact' && (
                  <Button
                    component="a"
                    href={`mailto:${checkout.salesEmail}?subject=${encodeURIComponent(`${plan.name} plan`)}`}
                    variant="outline"
                    fullWidth
                  >
                    Contact Sales
                  </Button>
                )}
                {action === 'current' && (
                  <Button fullWidth variant="light" disabled>
                    Current Plan
                  </Button>
                )}
                {action === 'upgrade' && (
                  <Button fullWidth disabled={!checkout.configured || busy} onClick={() => onUpgrade({ plan, cycle })}>
                    Upgrade
                  </Button>
                )}
                {action === 'downgrade' && (
                  <Button
                    fullWidth
                    variant="default"
                    disabled={!checkout.configured || busy || subscription.cancelAtPeriodEnd}
                    onClick={() => onDowngrade({ plan, cycle })}
                  >
                    Downgrade
                  </Button>
                )}
              </div>
            </Card>
          );
        })}
      </SimpleGrid>
    </Stack>
  );
}
