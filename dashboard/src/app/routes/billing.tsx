// Billing and Subscription (/billing): the account's plan, usage, payments.
import { BillingPage } from '@/features/billing/components/BillingPage';

export function BillingRoute() {
  return <BillingPage />;
}
