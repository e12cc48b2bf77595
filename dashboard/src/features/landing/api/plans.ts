import { api } from '@/lib/api';

/** One plan of GET /api/billing/plans (public: the landing page reads it signed out). */
export interface Plan {
  id: string;
  name: string;
  priceMonthlyCents: number | null;
  priceYearlyCents: number | null;
  /** 999 or more means unlimited (spec 2 §3). */
  conversationsLimit: number;
  botsLimit: number;
  creditsLimit: number;
  features: string[];
  /** Marks Pro ("Most Popular"). */
  popular: boolean;
  /** Enterprise: price "Custom", Contact Sales. */
  custom: boolean;
}

export interface Plans {
  plans: Plan[];
  currency: string;
  yearlyDiscountPercent: number;
  /** The value a limit takes when it is unlimited (999). */
  unlimited: number;
  /** Where Contact Sales writes. */
  salesEmail: string;
}

export const plansApi = {
  list: () => api<Plans>('/billing/plans'),
};
