// Pricing (#pricing) from GET /api/billing/plans: the plans table is the one source of prices,
// limits and features (which name the conversation and assistant limits; the credits are added). Monthly/Yearly with the server's discount; Enterprise is "Custom" with
// Contact Sales; a limit of exactly 999 reads "Unlimited".
import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, Container, Group, List, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import { errorMessage } from '@/lib/api';
import { plansApi, type Plans } from '../api/plans';
import { limitText, priceText, type Billing } from '../lib/pricing';

/** Enterprise's Contact Sales starts a mail to the server's configured sales address. */
export function Pricing() {
  const [plans, setPlans] = useState<Plans | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [billing, setBilling] = useState<Billing>('monthly');

  useEffect(() => {
    plansApi.list().then(setPlans, (e) => setError(errorMessage(e, 'Plans could not be loaded')));
  }, []);

  return (
    <section id="pricing" aria-labelledby="pricing-title">
      <Container size="lg" py={64}>
        <Stack align="center" gap="xs" mb="xl">
          <Title order={2} id="pricing-title">
            Simple pricing
          </Title>
          <Group gap="xs">
            <SegmentedControl
              aria-label="Billing period"
              value={billing}
              onChange={(v) => setBilling(v as Billing)}
              data={[
                { value: 'monthly', label: 'Monthly' },
                { value: 'yearly', label: 'Yearly' },
              ]}
            />
            {plans && plans.yearlyDiscountPercent > 0 && (
              <Badge color="green" variant="light">
                Save {plans.yearlyDiscountPercent}%
              </Badge>
            )}
          </Group>
        </Stack>
        {error && <Alert color="red">{error}</Alert>}
        <SimpleGrid cols={{ base: 1, md: 3 }} spacing="lg">
          {!plans && !error
            ? [0, 1, 2].map((i) => <Skeleton key={i} h={380} radius="md" />)
            : plans?.plans.map((plan) => (
                <Card
                  key={plan.id}
                  withBorder
                  padding="xl"
                  radius="md"
                  data-testid={`plan-${plan.id}`}
                  style={plan.popular ? { borderColor: 'var(--mantine-color-blue-6)', borderWidth: 2 } : undefined}
                >
                  <Group justify="space-between">
                    <Text fw={700} size="lg">
                      {plan.name}
                    </Text>
                    {plan.popular && <Badge>Most Popular</Badge>}
                  </Group>
                  <Group gap={4} align="baseline" mt="md">
                    <Text fz={36} fw={800} data-testid="plan-price">
                      {priceText(plan, billing, plans.currency)}
                    </Text>
                    {!plan.custom && (
                      <Text c="dimmed" size="sm">
                        /month{billing === 'yearly' ? ', billed yearly' : ''}
                      </Text>
                    )}
                  </Group>
                  <List spacing={6} size="sm" mt="lg" icon={<IconCheck size={16} color="var(--mantine-color-green-6)" />}>
                    {plan.features.map((f) => (
                      <List.Item key={f}>{f}</List.Item>
                    ))}
                    <List.Item>{limitText(plan.creditsLimit, 'AI credit', 'AI credits', plans.unlimited)} a month</List.Item>
                  </List>
                  {plan.custom ? (
                    <Button
                      component="a"
                      href={`mailto:${plans.salesEmail}?subject=${encodeURIComponent(`Parley ${plan.name}`)}`}
                      variant="default"
                      fullWidth
                      mt="xl"
                    >
                      Contact Sales
                    </Button>
                  ) : (
                    <Button component={Link} to="/signup" variant={plan.popular ? 'filled' : 'light'} fullWidth mt="xl">
                      Get started
                    </Button>
                  )}
                </Card>
              ))}
        </SimpleGrid>
      </Container>
    </section>
  );
}
