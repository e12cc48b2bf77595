import { describe, expect, it } from 'vitest';
import type { Plan } from '../api/plans';
import { limitText, priceText } from './pricing';

const plan = (over: Partial<Plan>): Plan => ({
  id: 'pro',
  name: 'Pro',
  priceMonthlyCents: 2900,
  priceYearlyCents: 27840,
  conversationsLimit: 5000,
  botsLimit: 5,
  creditsLimit: 5000,
  features: [],
  popular: true,
  custom: false,
  ...over,
});

describe('pricing cards', () => {
  it('shows monthly prices, and yearly ones as their monthly share', () => {
    expect(priceText(plan({}), 'monthly', 'usd')).toBe('$29');
    expect(priceText(plan({}), 'yearly', 'usd')).toBe('$23.20');
    expect(priceText(plan({ priceMonthlyCents: 0, priceYearlyCents: 0 }), 'yearly', 'usd')).toBe('$0');
  });

  it('prices Enterprise on request', () => {
    expect(priceText(plan({ custom: true, priceMonthlyCents: null, priceYearlyCents: null }), 'monthly', 'usd')).toBe('Custom');
  });

  it('reads exactly 999 as unlimited, as the server enforces it', () => {
    expect(limitText(100, 'AI credit', 'AI credits')).toBe('100 AI credits');
    // store/src/billing.rs: only 999 itself is unlimited; Pro's 5,000 is a real limit.
    expect(limitText(5000, 'AI credit', 'AI credits')).toBe('5,000 AI credits');
    expect(limitText(1, 'AI credit', 'AI credits')).toBe('1 AI credit');
    expect(limitText(999, 'AI credit', 'AI credits', 999)).toBe('Unlimited AI credits');
  });
});
