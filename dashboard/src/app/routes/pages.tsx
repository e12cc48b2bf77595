// Screens whose content arrives with their own issues (leads, billing). Each shows its real title
// and nothing invented.
import { PageHeader } from '@/components/PageHeader';

export function PageRoute({ title }: { title: string }) {
  return <PageHeader title={title} />;
}
