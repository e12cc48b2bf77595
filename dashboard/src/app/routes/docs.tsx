// Documentation — placeholder until its screen lands.
import { PageHeader } from '@/components/PageHeader';

export function DocsRoute() {
  return <PageHeader title="Documentation" />;
}
