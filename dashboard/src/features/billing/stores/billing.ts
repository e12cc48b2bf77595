// The Billing page's state: the plans, the caller's subscription (with its newest payments and
// whether the server takes payments), the usage meters, the Monthly/Yearly toggle, and the
// full history when 'View all' is open. Everything shown comes from the server.
import { proxy, ref } from 'valtio';
import { loadMe } from '@/features/auth/stores/session';
import { errorMessage } from '@/lib/api';
import { onSignOut } from '@/lib/sign-out';
import { billingApi, type PaymentsPage, type PlansReply, type SubscriptionReply, type UsageReply } from '../api/billing';
import type { Cycle } from './format';

export const HISTORY_PAGE_SIZE = 10;

export interface BillingState {
  plans: PlansReply | null;
  account: SubscriptionReply | null;
  usage: UsageReply | null;
  cycle: Cycle;
  loading: boolean;
  error: string | null;
  /** 'View all': one page of the whole history, or null while closed. */
  history: PaymentsPage | null;
  historyLoading: boolean;
}

const initial = (): BillingState => ({
  plans: null,
  account: null,
  usage: null,
  cycle: 'monthly',
  loading: false,
  error: null,
  history: null,
  historyLoading: false,
});

export const billing = proxy<BillingState>(initial());

onSignOut(() => Object.assign(billing, initial()));

let inflight: AbortController | null = null;

/** Loads the three parts together; a later load supersedes an earlier one. */
export async function loadBilling(): Promise<void> {
  inflight?.abort();
  const ctl = new AbortController();
  inflight = ctl;
  billing.loading = true;
  billing.error = null;
  try {
    const [plans, account, usage] = await Promise.all([
      billingApi.plans(ctl.signal),
      billingApi.subscription(ctl.signal),
      billingApi.usage(ctl.signal),
    ]);
    if (ctl.signal.aborted) return;
    const first = billing.account === null;
    billing.plans = ref(plans);
    billing.account = ref(account);
    billing.usage = ref(usage);
    // The sidebar's credits and the usage banner read the session's copy of the plan.
    void loadMe({ keepOnError: true });
    // The toggle starts on the cycle the account pays by.
    if (first && account.subscription.cycle === 'yearly') billing.cycle = 'yearly';
  } catch (err) {
    if ((err as Error)?.name === 'AbortError') return;
    billing.error = errorMessage(err, 'Unable to load your billing details');
  } finally {
    if (inflight === ctl) {
      inflight = null;
      billing.loading = false;
    }
  }
}

export function setCycle(cycle: Cycle): void {
  billing.cycle = cycle;
}

export async function openHistory(page = 1): Promise<void> {
  billing.historyLoading = true;
  try {
    billing.history = ref(await billingApi.payments(page, HISTORY_PAGE_SIZE));
  } catch (err) {
    billing.error = errorMessage(err, 'Unable to load your billing history');
  } finally {
    billing.historyLoading = false;
  }
}

export function closeHistory(): void {
  billing.history = null;
}
