// The Billing page's calls (http/src/routes/billing): the plans on offer, the caller's
// subscription with its newest payments, the three usage meters, and the paged history; the
// checkout of a paid plan, and its cancellation at the period's end or resumption.
import { api } from '@/lib/api';

/** A plan as the pricing cards show it (http/src/views/billing.rs `PlanView`). */
export interface Plan {
  id: string;
  name: string;
  /** Cents; null for a plan priced on request (Enterprise). */
  priceMonthlyCents: number | null;
  priceYearlyCents: number | null;
  conversationsLimit: number;
  botsLimit: number;
  creditsLimit: number;
  features: string[];
  popular: boolean;
  custom: boolean;
}

export interface PlansReply {
  plans: Plan[];
  currency: string;
  yearlyDiscountPercent: number;
  unlimited: number;
}

export interface Subscription {
  planType: string;
  planName: string;
  status: string;
  cycle: 'monthly' | 'yearly' | string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  daysUntilRenewal: number;
  cancelAtPeriodEnd: boolean;
  endsAt: string | null;
}

export interface Payment {
  _id: string;
  id: string;
  description: string;
  amountCents: number;
  amount: number;
  currency: string;
  status: string;
  paidAt: string;
}

export interface Checkout {
  configured: boolean;
  publishableKey: string | null;
  jsUrl: string | null;
  salesEmail: string;
}

export interface SubscriptionReply {
  subscription: Subscription;
  paymentHistory: Payment[];
  checkout: Checkout;
}

export interface Meter {
  used: number;
  total: number;
}

export interface UsageReply {
  usage: { conversations: Meter; bots: Meter; credits: Meter };
  periodStart: string;
  periodEnd: string;
  unlimited: number;
}

export interface PaymentsPage {
  payments: Payment[];
  total: number;
  page: number;
  limit: number;
}

/** `POST /api/billing/checkout`: a subscription waiting for its first payment. */
export interface CheckoutReply {
  subscriptionId: string;
  /** For Stripe.js `confirmCardPayment`. */
  clientSecret: string;
  plan: string;
  cycle: string;
}

export const billingApi = {
  plans: (signal?: AbortSignal) => api<PlansReply>('/billing/plans', { signal }),
  subscription: (signal?: AbortSignal) => api<SubscriptionReply>('/billing/subscription', { signal }),
  usage: (signal?: AbortSignal) => api<UsageReply>('/billing/usage', { signal }),
  payments: (page: number, limit: number) => api<PaymentsPage>(`/billing/payments?page=${page}&limit=${limit}`),
  checkout: (plan: string, cycle: string) => api<CheckoutReply>('/billing/checkout', { method: 'POST', body: { plan, cycle } }),
  /** Cancel at the period's end (also the downgrade to Free), and its undoing. */
  cancel: () => api<Subscription>('/billing/cancel', { method: 'POST', body: {} }),
  resume: () => api<Subscription>('/billing/resume', { method: 'POST', body: {} }),
};
