// Settings — placeholder until its screen lands.
import { PageHeader } from '@/components/PageHeader';

export function SettingsRoute() {
  return <PageHeader title="Settings" />;
}
