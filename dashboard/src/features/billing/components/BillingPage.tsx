// Billing and Subscription (/billing), spec 2: the Current Plan card with its meters, the
// Monthly/Yearly toggle and three plan cards, Billing History and Subscription Status. Every
// figure is the server's; without payments configured the page says so and offers no checkout.
import { useEffect } from 'react';
import { Alert, Button, Center, Grid, Loader, Stack, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { PageHeader } from '@/components/PageHeader';
import type { PaymentsPage, PlansReply, SubscriptionReply, UsageReply } from '../api/billing';
import { billing, closeHistory, loadBilling, openHistory, setCycle } from '../stores/billing';
import { BillingHistory } from './BillingHistory';
import { CurrentPlanCard } from './CurrentPlanCard';
import { PlanCards, type PlanChoice } from './PlanCards';
import { SubscriptionStatus } from './SubscriptionStatus';

interface Props {
  onUpgrade?: (choice: PlanChoice) => void;
  onDowngrade?: (choice: PlanChoice) => void;
  busy?: boolean;
  /** Shown under the plan cards (the card form while an upgrade is confirmed). */
  checkoutPanel?: React.ReactNode;
  statusActions?: React.ReactNode;
}

export function BillingPage({ onUpgrade = () => {}, onDowngrade = () => {}, busy = false, checkoutPanel, statusActions }: Props) {
  const snap = useSnapshot(billing);
  useEffect(() => {
    void loadBilling();
  }, []);
  // Held as refs: the snapshot hands back the server's objects as they came.
  const plans = snap.plans as PlansReply | null;
  const account = snap.account as SubscriptionReply | null;
  const usage = snap.usage as UsageReply | null;
  const history = snap.history as PaymentsPage | null;
  return (
    <Stack gap="lg">
      <PageHeader title="Billing and Subscription" subtitle="Your plan, its usage, and your payments" />
      {snap.error && (
        <Alert color="red" title="Billing" withCloseButton={false}>
          {snap.error}{' '}
          <Button size="xs" variant="subtle" onClick={() => void loadBilling()}>
            Try again
          </Button>
        </Alert>
      )}
      {!plans || !account || !usage ? (
        !snap.error && (
          <Center py="xl">
            <Loader aria-label="Loading billing" />
          </Center>
        )
      ) : (
        <>
          {!account.checkout.configured && (
            <Alert icon={<IconInfoCircle />} color="blue" data-testid="payments-not-configured">
              <Text size="sm">
                Payments are not configured on this server. The plans and your usage are shown below; the server's
                administrator can change your plan.
              </Text>
            </Alert>
          )}
          <CurrentPlanCard subscription={account.subscription} usage={usage} plans={plans} />
          <PlanCards
            plans={plans}
            subscription={account.subscription}
            checkout={account.checkout}
            cycle={snap.cycle}
            onCycle={setCycle}
            onUpgrade={onUpgrade}
            onDowngrade={onDowngrade}
            busy={busy}
          />
          {checkoutPanel}
          <Grid>
            <Grid.Col span={{ base: 12, md: 7 }}>
              <BillingHistory
                recent={account.paymentHistory}
                all={history}
                loadingAll={snap.historyLoading}
                onViewAll={(page) => void openHistory(page)}
                onClose={closeHistory}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 5 }}>
              <SubscriptionStatus subscription={account.subscription}>{statusActions}</SubscriptionStatus>
            </Grid.Col>
          </Grid>
        </>
      )}
    </Stack>
  );
}
