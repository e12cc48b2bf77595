// The Billing page with its payment actions: Upgrade opens the card form (Stripe.js's card field)
// under the plan cards; Pay confirms the card, then the form waits until Stripe's webhook has
// changed the plan. Downgrade to Free and 'Cancel subscription' end the plan with the period;
// 'Resume subscription' undoes that before the end.
import { useEffect, useRef } from 'react';
import { Alert, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useSnapshot } from 'valtio';
import type { SubscriptionReply } from '../api/billing';
import { billing } from '../stores/billing';
import { cancelAtPeriodEnd, checkout, closeCheckout, mountCard, pay, resume, startCheckout } from '../stores/checkout';
import { BillingPage } from './BillingPage';

function CardForm() {
  const snap = useSnapshot(checkout);
  const field = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (snap.phase === 'card' && field.current) mountCard(field.current);
  }, [snap.phase]);
  if (snap.phase === 'idle') return null;
  const cycle = snap.cycle === 'yearly' ? 'yearly' : 'monthly';
  return (
    <Card withBorder padding="lg" data-testid="checkout-panel">
      <Stack gap="sm">
        <Title order={4}>
          Upgrade to {snap.planName}, billed {cycle}
        </Title>
        {snap.phase === 'starting' && <Loader size="sm" aria-label="Starting the checkout" />}
        {/* Stripe.js mounts its card field here; the card number never reaches our server. */}
        <div ref={field} data-testid="card-element" style={{ minHeight: snap.phase === 'starting' ? 0 : 40 }} />
        {snap.phase === 'waiting' ? (
          <Group gap="xs" data-testid="checkout-waiting">
            <Loader size="xs" />
            <Text size="sm">Payment sent. Waiting for Stripe to confirm it…</Text>
          </Group>
        ) : (
          <Group>
            <Button onClick={() => void pay()} loading={snap.phase === 'paying'} disabled={snap.phase !== 'card' && snap.phase !== 'paying'}>
              Pay and upgrade
            </Button>
            <Button variant="default" onClick={closeCheckout} disabled={snap.phase === 'paying'}>
              Cancel
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

function StatusActions({ account }: { account: SubscriptionReply }) {
  const snap = useSnapshot(checkout);
  const s = account.subscription;
  if (!account.checkout.configured || s.planType === 'free') return null;
  return (
    <Group mt="xs">
      {s.cancelAtPeriodEnd ? (
        <Button size="xs" variant="light" loading={snap.acting} onClick={() => void resume()}>
          Resume subscription
        </Button>
      ) : (
        <Button size="xs" variant="default" color="red" loading={snap.acting} onClick={() => void cancelAtPeriodEnd()}>
          Cancel subscription
        </Button>
      )}
    </Group>
  );
}

export function BillingCheckout() {
  const snap = useSnapshot(checkout);
  const page = useSnapshot(billing);
  const account = page.account as SubscriptionReply | null;
  useEffect(() => () => closeCheckout(), []);
  return (
    <BillingPage
      busy={snap.phase !== 'idle' || snap.acting}
      onUpgrade={({ plan, cycle }) => account && void startCheckout(plan.id, plan.name, cycle, account.checkout)}
      onDowngrade={() => void cancelAtPeriodEnd()}
      checkoutPanel={
        <>
          {snap.error && (
            <Alert color="red" data-testid="checkout-error">
              {snap.error}
            </Alert>
          )}
          {snap.notice && (
            <Alert color="green" data-testid="checkout-notice">
              {snap.notice}
            </Alert>
          )}
          <CardForm />
        </>
      }
      statusActions={account && <StatusActions account={account} />}
    />
  );
}
