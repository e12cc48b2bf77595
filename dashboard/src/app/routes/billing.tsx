// Billing and Subscription (/billing): the account's plan, usage, payments, and its checkout.
import { BillingCheckout } from '@/features/billing/components/BillingCheckout';

export function BillingRoute() {
  return <BillingCheckout />;
}
