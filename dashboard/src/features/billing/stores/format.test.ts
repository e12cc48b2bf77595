import { describe, expect, it } from 'vitest';
import type { Plan } from '../api/billing';
import { meterColor, meterPercent, meterText, money, nearLimits, paymentColor, planAction, priceFor } from './format';

const plan = (id: string, monthly: number | null, yearly: number | null, extra: Partial<Plan> = {}): Plan => ({
  id,
  name: id[0].toUpperCase() + id.slice(1),
  priceMonthlyCents: monthly,
  priceYearlyCents: yearly,
  conversationsLimit: 100,
  botsLimit: 1,
  creditsLimit: 100,
  features: [],
  popular: false,
  custom: monthly === null,
  ...extra,
});
const PLANS = [plan('free', 0, 0), plan('pro', 2900, 27840, { popular: true }), plan('enterprise', null, null)];

describe('billing format', () => {
  it('colours a meter green, yellow from 80 %, red at the limit; unlimited stays green', () => {
    expect(meterColor({ used: 79, total: 100 })).toBe('green');
    expect(meterColor({ used: 80, total: 100 })).toBe('yellow');
    expect(meterColor({ used: 100, total: 100 })).toBe('red');
    expect(meterColor({ used: 2, total: 1 })).toBe('red');
    expect(meterColor({ used: 5000, total: 999 })).toBe('green');
    expect(meterColor({ used: 4500, total: 5000 })).toBe('yellow');
    expect(meterPercent({ used: 5000, total: 999 })).toBe(0);
    expect(meterPercent({ used: 1, total: 4 })).toBe(25);
    expect(meterText({ used: 1200, total: 5000 })).toBe('1,200 / 5,000');
    expect(meterText({ used: 3, total: 999 })).toBe('3 / Unlimited');
  });

  it('prices monthly, yearly per month with the yearly bill, and custom', () => {
    expect(priceFor(PLANS[1], 'monthly')).toEqual({ headline: '$29', per: '/month', billed: null });
    expect(priceFor(PLANS[1], 'yearly')).toEqual({ headline: '$23.20', per: '/month', billed: '$278.40 billed yearly' });
    expect(priceFor(PLANS[0], 'yearly').headline).toBe('$0');
    expect(priceFor(PLANS[2], 'monthly')).toEqual({ headline: 'Custom', per: '', billed: null });
    expect(money(2900)).toBe('$29');
  });

  it('offers Upgrade above the current plan, Downgrade below, Contact Sales for custom', () => {
    expect(planAction(PLANS, 'free', PLANS[0])).toBe('current');
    expect(planAction(PLANS, 'free', PLANS[1])).toBe('upgrade');
    expect(planAction(PLANS, 'pro', PLANS[0])).toBe('downgrade');
    expect(planAction(PLANS, 'free', PLANS[2])).toBe('contact');
    expect(planAction(PLANS, 'enterprise', PLANS[1])).toBe('downgrade');
  });

  it('colours payments as the spec says', () => {
    expect([paymentColor('succeeded'), paymentColor('failed'), paymentColor('open')]).toEqual(['green', 'red', 'yellow']);
  });

  it('lists the limits at 80 % or more for the banner', () => {
    const near = nearLimits({
      conversations: { used: 85, total: 100 },
      bots: { used: 1, total: 1 },
      credits: { used: 100, total: 100 },
    });
    expect(near).toEqual([
      { limit: 'conversations', label: 'conversations', percent: 85, reached: false },
      { limit: 'credits', label: 'credits', percent: 100, reached: true },
    ]);
    // A full set of assistants is no emergency; more than the plan allows is.
    expect(nearLimits({ conversations: { used: 0, total: 100 }, bots: { used: 3, total: 1 }, credits: { used: 0, total: 100 } })).toEqual([
      { limit: 'bots', label: 'assistants', percent: 100, reached: true },
    ]);
    expect(nearLimits({ conversations: { used: 990, total: 999 }, bots: { used: 0, total: 5 }, credits: { used: 0, total: 0 } })).toEqual([]);
  });
});
