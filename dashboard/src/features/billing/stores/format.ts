// Pure helpers of the Billing page and the usage banner: meters, prices, which action a plan
// card offers, colours. No I/O; tested directly.
import type { Platform } from '@/features/auth/api/auth';
import type { Meter, Plan } from '../api/billing';

/** A total of exactly 999 means unlimited (spec 2 §3); Pro's 5,000 is a limit. */
export const UNLIMITED = 999;
/** From this share of a limit the meter turns yellow and owners see the banner. */
export const NEAR_LIMIT_PERCENT = 80;

export const isUnlimited = (total: number) => total === UNLIMITED;

/** Share of the meter used, 0-100 (0 for unlimited or an empty total). */
export function meterPercent(m: Meter): number {
  if (isUnlimited(m.total) || !(m.total > 0)) return 0;
  return Math.min(100, Math.max(0, (m.used / m.total) * 100));
}

/** Green, then yellow from 80 %, red at the limit. */
export function meterColor(m: Meter): 'green' | 'yellow' | 'red' {
  if (isUnlimited(m.total)) return 'green';
  if (m.total <= 0 || m.used >= m.total) return 'red';
  return meterPercent(m) >= NEAR_LIMIT_PERCENT ? 'yellow' : 'green';
}

export function meterText(m: Meter): string {
  return isUnlimited(m.total) ? `${m.used.toLocaleString('en-US')} / Unlimited` : `${m.used.toLocaleString('en-US')} / ${m.total.toLocaleString('en-US')}`;
}

export function money(cents: number, currency = 'usd'): string {
  const whole = cents % 100 === 0;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
    minimumFractionDigits: whole ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(cents / 100);
}

export type Cycle = 'monthly' | 'yearly';

/** What a plan card shows as its price: per month, and for yearly what is billed a year. */
export function priceFor(plan: Plan, cycle: Cycle, currency = 'usd'): { headline: string; per: string; billed: string | null } {
  if (plan.custom || plan.priceMonthlyCents === null) return { headline: 'Custom', per: '', billed: null };
  if (cycle === 'yearly' && plan.priceYearlyCents !== null && plan.priceYearlyCents > 0) {
    return {
      headline: money(Math.round(plan.priceYearlyCents / 12), currency),
      per: '/month',
      billed: `${money(plan.priceYearlyCents, currency)} billed yearly`,
    };
  }
  return { headline: money(plan.priceMonthlyCents, currency), per: '/month', billed: null };
}

export type PlanAction = 'current' | 'upgrade' | 'downgrade' | 'contact';

/** The button a plan card offers the account on `current` (plans ordered cheapest first). */
export function planAction(plans: Pick<Plan, 'id' | 'custom'>[], current: string, target: Pick<Plan, 'id' | 'custom'>): PlanAction {
  if (target.id === current) return 'current';
  if (target.custom) return 'contact';
  const rank = (id: string) => plans.findIndex((p) => p.id === id);
  return rank(target.id) > rank(current) ? 'upgrade' : 'downgrade';
}

/** Spec 2 §4: succeeded green, failed red, anything else yellow. */
export function paymentColor(status: string): 'green' | 'red' | 'yellow' {
  if (status === 'succeeded') return 'green';
  if (status === 'failed') return 'red';
  return 'yellow';
}

export function dateText(iso: string): string {
  return new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

export type LimitName = 'conversations' | 'bots' | 'credits';
const LABELS: Record<LimitName, string> = { conversations: 'conversations', bots: 'assistants', credits: 'credits' };

/** The plan's limits at 80 % or more (nearLimits), from `/api/me`'s platform. */
export function planNearLimits(p: Platform) {
  return nearLimits({
    conversations: { used: p.conversationsUsed ?? 0, total: p.conversationsTotal ?? 0 },
    bots: { used: p.botsUsed ?? 0, total: p.botsTotal ?? 0 },
    credits: { used: p.creditsUsed, total: p.creditsTotal },
  });
}

/** The limits at 80 % or more, with the share used, for the banner. Conversations and credits
 * run out within the month; assistants do not, so they count only when there are more than the
 * plan allows (after a move to a smaller plan, the extra ones are paused). */
export function nearLimits(meters: Record<LimitName, Meter>): { limit: LimitName; label: string; percent: number; reached: boolean }[] {
  return (Object.keys(LABELS) as LimitName[])
    .map((limit) => ({ limit, m: meters[limit] }))
    .filter(({ m }) => m && !isUnlimited(m.total) && m.total > 0)
    .filter(({ limit, m }) => (limit === 'bots' ? m.used > m.total : (m.used / m.total) * 100 >= NEAR_LIMIT_PERCENT))
    .map(({ limit, m }) => ({ limit, label: LABELS[limit], percent: Math.min(100, Math.round((m.used / m.total) * 100)), reached: m.used >= m.total }));
}
