// The upgrade and the cancellation on the Billing page. Upgrade: the server creates the Stripe
// subscription waiting for its first payment and answers the payment's client secret; the card
// typed into Stripe.js's field is confirmed against it; then the page polls the subscription
// until Stripe's webhook has changed the plan (the server changes it only then). Cancel sets
// the plan to end with the period (also the downgrade to Free); resume undoes that.
import { proxy } from 'valtio';
import { ApiError, errorMessage } from '@/lib/api';
import { onSignOut } from '@/lib/sign-out';
import { billingApi, type Checkout } from '../api/billing';
import type { Cycle } from './format';
import { loadBilling } from './billing';
import { loadStripe, type CardElement, type StripeJs } from './stripe';

/** How often, and how long, the page asks whether the payment has changed the plan. */
export const POLL_MS = 1000;
export const POLL_TRIES = 60;

export type Phase = 'idle' | 'starting' | 'card' | 'paying' | 'waiting';

export interface CheckoutState {
  phase: Phase;
  planId: string | null;
  planName: string | null;
  cycle: Cycle;
  error: string | null;
  /** What happened last (paid, cancelled, resumed), shown until the next action. */
  notice: string | null;
  /** A cancel or resume under way. */
  acting: boolean;
}

const initial = (): CheckoutState => ({ phase: 'idle', planId: null, planName: null, cycle: 'monthly', error: null, notice: null, acting: false });

export const checkout = proxy<CheckoutState>(initial());

// Stripe.js objects stay out of the proxy (valtio would wrap them).
let stripe: StripeJs | null = null;
let card: CardElement | null = null;
let clientSecret: string | null = null;
let polling = 0;

function dropCard() {
  card?.destroy();
  card = null;
  clientSecret = null;
}

onSignOut(() => {
  polling += 1;
  dropCard();
  Object.assign(checkout, initial());
});

/** Starts a checkout of `planId` billed by `cycle`: the card form opens once the server agreed. */
export async function startCheckout(planId: string, planName: string, cycle: Cycle, config: Checkout): Promise<void> {
  dropCard();
  Object.assign(checkout, { phase: 'starting', planId, planName, cycle, error: null, notice: null });
  try {
    if (!config.configured || !config.jsUrl || !config.publishableKey) throw new Error('Payments are not configured on this server');
    const [make, started] = await Promise.all([loadStripe(config.jsUrl), billingApi.checkout(planId, cycle)]);
    stripe = make(config.publishableKey);
    clientSecret = started.clientSecret;
    checkout.phase = 'card';
  } catch (err) {
    checkout.phase = 'idle';
    checkout.error = err instanceof ApiError || !(err instanceof Error) ? errorMessage(err, 'Unable to start the checkout') : err.message;
  }
}

/** Mounts Stripe.js's card field into `el` (the form calls this once it is on the page). */
export function mountCard(el: HTMLElement): void {
  if (!stripe || card) return;
  card = stripe.elements().create('card');
  card.mount(el);
}

export function closeCheckout(): void {
  polling += 1;
  dropCard();
  Object.assign(checkout, { phase: 'idle', error: null });
}

/** Confirms the typed card; on success waits for the webhook to change the plan. */
export async function pay(): Promise<void> {
  if (!stripe || !card || !clientSecret || checkout.phase !== 'card') return;
  checkout.phase = 'paying';
  checkout.error = null;
  const result = await stripe.confirmCardPayment(clientSecret, { payment_method: { card } }).catch((err: unknown) => ({
    error: { message: err instanceof Error ? err.message : 'The payment could not be sent' },
  }));
  if (result.error) {
    // The same subscription may be paid with another card: the form stays.
    checkout.phase = 'card';
    checkout.error = result.error.message || 'The payment was declined';
    return;
  }
  checkout.phase = 'waiting';
  await waitForPlan(checkout.planId ?? '', checkout.cycle);
}

async function waitForPlan(planId: string, cycle: Cycle): Promise<void> {
  const run = ++polling;
  for (let i = 0; i < POLL_TRIES; i++) {
    if (run !== polling) return;
    try {
      const { subscription } = await billingApi.subscription();
      if (subscription.planType === planId && subscription.cycle === cycle) {
        dropCard();
        Object.assign(checkout, { phase: 'idle', notice: `Payment received. You are on the ${subscription.planName} plan.` });
        await loadBilling();
        return;
      }
    } catch {
      // A failed poll is tried again on the next tick.
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (run !== polling) return;
  dropCard();
  Object.assign(checkout, {
    phase: 'idle',
    notice: 'Your payment was sent, but Stripe has not confirmed it yet. Your plan changes as soon as it does; reload this page in a minute.',
  });
}

async function changeCancellation(call: () => Promise<unknown>, done: string): Promise<void> {
  checkout.acting = true;
  checkout.error = null;
  checkout.notice = null;
  try {
    await call();
    // The notice and the page's new state appear together (the notice first would show
    // "cancelled" beside the old renewal line for a moment).
    await loadBilling();
    checkout.notice = done;
  } catch (err) {
    checkout.error = errorMessage(err, 'Unable to change your subscription');
  } finally {
    checkout.acting = false;
  }
}

/** Cancels at the period's end (also the downgrade to Free). */
export function cancelAtPeriodEnd(): Promise<void> {
  return changeCancellation(billingApi.cancel, 'Your subscription is cancelled. Your plan stays until the end of the billing period.');
}

export function resume(): Promise<void> {
  return changeCancellation(billingApi.resume, 'Your subscription renews again.');
}
