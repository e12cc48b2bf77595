// Settings: the signed-in user's profile, password and notification preferences.
import { PageHeader } from '@/components/PageHeader';
import { AccountSettings } from '@/features/settings/components/AccountSettings';

export function SettingsRoute() {
  return (
    <>
      <PageHeader title="Settings" subtitle="Manage your account, security and notifications" />
      <AccountSettings />
    </>
  );
}
