// Leads (/leads): every lead of the bots the user is on, with their own filters.
import { LeadsPage } from '@/features/leads/components/LeadsPage';

export function LeadsRoute() {
  return <LeadsPage />;
}
