// The checkout on the Billing page with the server's replies stubbed and Stripe.js replaced by a
// recording fake (the real one runs in the end-to-end test against localstripe): the card is
// confirmed against the server's client secret, the plan shows only once the server says so,
// a declined card keeps the form with Stripe's message, and cancel/resume call the server.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render } from '../../../../test-utils/render';
import { me, mockFetch } from '../../../../test-utils/fetch';
import { runSignOutResets } from '@/lib/sign-out';
import type { PlansReply, SubscriptionReply, UsageReply } from '../api/billing';
import { BillingCheckout } from './BillingCheckout';

const confirmCardPayment = vi.fn();
const mounted: HTMLElement[] = [];
vi.mock('../stores/stripe', () => ({
  loadStripe: vi.fn(async () => (key: string) => {
    expect(key).toBe('pk_test_1');
    return {
      elements: () => ({ create: () => ({ mount: (el: HTMLElement) => mounted.push(el), destroy: () => {} }) }),
      confirmCardPayment,
    };
  }),
}));

const plans: PlansReply = {
  plans: [
    { id: 'free', name: 'Free', priceMonthlyCents: 0, priceYearlyCents: 0, conversationsLimit: 100, botsLimit: 1, creditsLimit: 100, features: [], popular: false, custom: false },
    { id: 'pro', name: 'Pro', priceMonthlyCents: 2900, priceYearlyCents: 27840, conversationsLimit: 5000, botsLimit: 5, creditsLimit: 5000, features: [], popular: true, custom: false },
  ],
  currency: 'usd',
  yearlyDiscountPercent: 20,
  unlimited: 999,
};
const usage: UsageReply = {
  usage: { conversations: { used: 1, total: 100 }, bots: { used: 1, total: 1 }, credits: { used: 1, total: 100 } },
  periodStart: '2026-11-01T00:00:00.000Z', periodEnd: '2026-12-01T00:00:00.000Z', unlimited: 999,
};
const sub = (over: Partial<SubscriptionReply['subscription']> = {}): SubscriptionReply => ({
  subscription: {
    planType: 'free', planName: 'Free', status: 'active', cycle: 'monthly', currentPeriodStart: '2026-11-01T00:00:00.000Z',
    currentPeriodEnd: '2026-12-01T00:00:00.000Z', daysUntilRenewal: 8, cancelAtPeriodEnd: false, endsAt: null, ...over,
  },
  paymentHistory: [],
  checkout: { configured: true, publishableKey: 'pk_test_1', jsUrl: 'http://stripe.test/v3/', salesEmail: 's@x.co' },
});

describe('Billing checkout', () => {
  beforeEach(() => {
    runSignOutResets();
    confirmCardPayment.mockReset();
    mounted.length = 0;
  });

  it('confirms the card against the client secret and shows Pro only once the server has it', async () => {
    let current = sub();
    let polls = 0;
    const calls = mockFetch({
      'GET /api/billing/plans': { body: plans },
      'GET /api/billing/subscription': () => {
        polls += 1;
        // The webhook lands after a few polls.
        if (polls === 4) current = sub({ planType: 'pro', planName: 'Pro', cycle: 'yearly' });
        return { body: current };
      },
      'GET /api/billing/usage': { body: usage },
      'GET /api/me': { body: me },
      'POST /api/billing/checkout': { body: { subscriptionId: 'sub_1', clientSecret: 'pi_1_secret_x', plan: 'pro', cycle: 'yearly' } },
    });
    confirmCardPayment.mockResolvedValueOnce({ error: { message: 'Your card was declined.' } }).mockResolvedValueOnce({ paymentIntent: { id: 'pi_1', status: 'succeeded' } });
    render(<BillingCheckout />);
    await screen.findByTestId('plan-pro');
    await userEvent.click(screen.getByText('Yearly', { exact: true }));
    await userEvent.click(within(screen.getByTestId('plan-pro')).getByRole('button', { name: 'Upgrade' }));
    await screen.findByTestId('checkout-panel');
    await waitFor(() => expect(mounted).toEqual([screen.getByTestId('card-element')]));
    expect(calls.find((c) => c.path === '/api/billing/checkout')?.body).toEqual({ plan: 'pro', cycle: 'yearly' });

    await userEvent.click(screen.getByRole('button', { name: 'Pay and upgrade' }));
    expect(await screen.findByTestId('checkout-error')).toHaveTextContent('Your card was declined.');
    expect(screen.getByTestId('current-plan-name')).toHaveTextContent('Free Plan');

    await userEvent.click(screen.getByRole('button', { name: 'Pay and upgrade' }));
    expect(confirmCardPayment).toHaveBeenLastCalledWith('pi_1_secret_x', { payment_method: { card: expect.anything() } });
    await screen.findByTestId('checkout-waiting');
    expect(await screen.findByTestId('checkout-notice', {}, { timeout: 8000 })).toHaveTextContent('Payment received. You are on the Pro plan.');
    await waitFor(() => expect(screen.getByTestId('current-plan-name')).toHaveTextContent('Pro Plan'));
    expect(screen.queryByTestId('checkout-panel')).toBeNull();
  }, 15000);

  it('cancels at the period end and resumes through the server', async () => {
    let current = sub({ planType: 'pro', planName: 'Pro' });
    const calls = mockFetch({
      'GET /api/billing/plans': { body: plans },
      'GET /api/billing/subscription': () => ({ body: current }),
      'GET /api/billing/usage': { body: usage },
      'GET /api/me': { body: me },
      'POST /api/billing/cancel': () => {
        current = sub({ planType: 'pro', planName: 'Pro', cancelAtPeriodEnd: true, endsAt: '2026-12-01T00:00:00.000Z' });
        return { body: current.subscription };
      },
      'POST /api/billing/resume': () => {
        current = sub({ planType: 'pro', planName: 'Pro' });
        return { body: current.subscription };
      },
    });
    render(<BillingCheckout />);
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel subscription' }));
    await waitFor(() => expect(screen.getByTestId('subscription-line')).toHaveTextContent('Your Pro plan ends on December 1, 2026; then the account moves to Free.'));
    await userEvent.click(screen.getByRole('button', { name: 'Resume subscription' }));
    await waitFor(() => expect(screen.getByTestId('subscription-line')).toHaveTextContent('Renews on December 1, 2026'));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/billing/cancel', '/api/billing/resume']);
  });
});
