// How a plan of GET /api/billing/plans reads on the pricing cards: prices from cents in the
// plan's currency, a limit of exactly 999 as "Unlimited" (spec 2 §3: Pro's 5,000 is a limit).
import type { Plan } from '../api/plans';

export type Billing = 'monthly' | 'yearly';

/** `5,000 AI credits`; `Unlimited AI credits` for exactly `unlimited` (the server's 999). */
export function limitText(n: number, one: string, many: string, unlimited = 999): string {
  if (n === unlimited) return `Unlimited ${many}`;
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** `$29` a month; yearly plans show their monthly equivalent. `Custom` for Enterprise. */
export function priceText(plan: Plan, billing: Billing, currency: string): string {
  if (plan.custom) return 'Custom';
  const cents = billing === 'yearly' && plan.priceYearlyCents !== null ? plan.priceYearlyCents / 12 : (plan.priceMonthlyCents ?? 0);
  const amount = cents / 100;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
    maximumFractionDigits: Number.isInteger(amount) ? 0 : 2,
  }).format(amount);
}
