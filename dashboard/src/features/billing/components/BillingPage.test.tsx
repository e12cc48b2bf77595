import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { me, mockFetch } from '../../../../test-utils/fetch';
import { runSignOutResets } from '@/lib/sign-out';
import type { Payment, PlansReply, SubscriptionReply, UsageReply } from '../api/billing';
import { BillingPage } from './BillingPage';

const plans: PlansReply = {
  plans: [
    { id: 'free', name: 'Free', priceMonthlyCents: 0, priceYearlyCents: 0, conversationsLimit: 100, botsLimit: 1, creditsLimit: 100, features: ['Basic analytics'], popular: false, custom: false },
    { id: 'pro', name: 'Pro', priceMonthlyCents: 2900, priceYearlyCents: 27840, conversationsLimit: 5000, botsLimit: 5, creditsLimit: 5000, features: ['Human handoff'], popular: true, custom: false },
    { id: 'enterprise', name: 'Enterprise', priceMonthlyCents: null, priceYearlyCents: null, conversationsLimit: 999, botsLimit: 999, creditsLimit: 999, features: ['SLA'], popular: false, custom: true },
  ],
  currency: 'usd',
  yearlyDiscountPercent: 20,
  unlimited: 999,
};

const payment = (n: number, status = 'succeeded'): Payment => ({
  _id: `p${n}`, id: `p${n}`, description: `Pro (monthly) #${n}`, amountCents: 2900, amount: 29, currency: 'usd', status, paidAt: `2026-0${n}-15T10:00:00.000Z`,
});

function account(over: Partial<SubscriptionReply['subscription']> = {}, history: Payment[] = [], configured = false): SubscriptionReply {
  return {
    subscription: {
      planType: 'free', planName: 'Free', status: 'active', cycle: 'monthly', currentPeriodStart: '2026-11-01T00:00:00.000Z',
      currentPeriodEnd: '2026-12-01T00:00:00.000Z', daysUntilRenewal: 8, cancelAtPeriodEnd: false, endsAt: null, ...over,
    },
    paymentHistory: history,
    checkout: { configured, publishableKey: configured ? 'pk_test_1' : null, jsUrl: configured ? 'http://stripe/js' : null, salesEmail: 'sales@shop.example' },
  };
}

const usage: UsageReply = {
  usage: { conversations: { used: 85, total: 100 }, bots: { used: 1, total: 1 }, credits: { used: 12, total: 100 } },
  periodStart: '2026-11-01T00:00:00.000Z', periodEnd: '2026-12-01T00:00:00.000Z', unlimited: 999,
};

function server(sub: SubscriptionReply, all: Payment[] = []) {
  return mockFetch({
    'GET /api/billing/plans': { body: plans },
    'GET /api/billing/subscription': { body: sub },
    'GET /api/billing/usage': { body: usage },
    'GET /api/billing/payments': (c) => {
      void c;
      return { body: { payments: all, total: all.length, page: 1, limit: 10 } };
    },
    'GET /api/me': { body: me },
  });
}

describe('Billing page', () => {
  beforeEach(() => runSignOutResets());

  it('shows the plan, the meters, the plans and says payments are not configured', async () => {
    server(account());
    render(<BillingPage />);
    expect(await screen.findByTestId('current-plan-name')).toHaveTextContent('Free Plan');
    expect(screen.getByTestId('payments-not-configured')).toHaveTextContent('Payments are not configured on this server');
    expect(screen.getByTestId('meter-conversations-text')).toHaveTextContent('85 / 100');
    expect(screen.getByTestId('meter-conversations')).toHaveAttribute('data-colour', 'yellow');
    expect(screen.getByTestId('meter-bots')).toHaveAttribute('data-colour', 'red');
    expect(screen.getByTestId('meter-credits')).toHaveAttribute('data-colour', 'green');

    const pro = screen.getByTestId('plan-pro');
    expect(within(pro).getByText('Most Popular')).toBeInTheDocument();
    expect(within(pro).getByTestId('price-pro')).toHaveTextContent('$29/month');
    expect(within(pro).getByRole('button', { name: 'Upgrade' })).toBeDisabled();
    expect(within(screen.getByTestId('plan-free')).getByTestId('current-badge')).toBeInTheDocument();
    const sales = within(screen.getByTestId('plan-enterprise')).getByRole('link', { name: 'Contact Sales' });
    expect(sales.getAttribute('href')).toMatch(/^mailto:sales@shop\.example\?subject=/);
    expect(screen.getByTestId('yearly-saving')).toHaveTextContent('Save 20%');

    await userEvent.click(screen.getByText('Yearly'));
    expect(within(pro).getByTestId('price-pro')).toHaveTextContent('$23.20/month');
    expect(within(pro).getByText('$278.40 billed yearly')).toBeInTheDocument();

    expect(screen.getByText('No billing history available')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'View all' })).toBeNull();
    expect(screen.getByTestId('subscription-state')).toHaveTextContent('Active');
    expect(screen.getByTestId('subscription-line')).toHaveTextContent('Usage resets on December 1, 2026 (8 days left).');
  });

  it('shows the newest three payments, the whole history on View all, and the renewal', async () => {
    const recent = [payment(5), payment(4, 'failed'), payment(3, 'pending')];
    server(account({ planType: 'pro', planName: 'Pro', daysUntilRenewal: 1 }, recent, true), [...recent, payment(2), payment(1)]);
    render(<BillingPage />);
    expect(await screen.findByTestId('current-plan-name')).toHaveTextContent('Pro Plan');
    expect(screen.queryByTestId('payments-not-configured')).toBeNull();
    const rows = within(screen.getByTestId('billing-history')).getAllByTestId('payment-row');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toHaveTextContent('Pro (monthly) #5');
    expect(rows[0]).toHaveTextContent('$29');
    expect(within(rows[1]).getByText('failed').closest('[data-colour]')).toHaveAttribute('data-colour', 'red');
    expect(within(rows[2]).getByText('pending').closest('[data-colour]')).toHaveAttribute('data-colour', 'yellow');
    expect(screen.getByTestId('subscription-line')).toHaveTextContent('Renews on December 1, 2026 (1 day left).');
    expect(within(screen.getByTestId('plan-free')).getByRole('button', { name: 'Downgrade' })).toBeEnabled();
    expect(within(screen.getByTestId('plan-pro')).getByRole('button', { name: 'Current Plan' })).toBeDisabled();

    await userEvent.click(screen.getByRole('button', { name: 'View all' }));
    const dialog = await screen.findByRole('dialog');
    await waitFor(() => expect(within(dialog).getAllByTestId('payment-row')).toHaveLength(5));
  });

  it('says when a cancelled plan ends, and Inactive for a failed payment', async () => {
    server(account({ planType: 'pro', planName: 'Pro', status: 'past_due', endsAt: '2026-12-08T00:00:00.000Z' }, [], true));
    render(<BillingPage />);
    expect(await screen.findByTestId('subscription-state')).toHaveTextContent('Inactive');
    expect(screen.getByTestId('subscription-line')).toHaveTextContent('Your last payment failed. Pro stays until December 8, 2026');
  });
});
