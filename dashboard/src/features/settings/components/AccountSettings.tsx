// The Settings screen's three tabs: Profile, Security (password, sessions, two-factor sign-in),
// Notifications. Each tab saves for real.
import { useEffect, useState, type FormEvent } from 'react';
import {
  Avatar,
  Button,
  Card,
  FileButton,
  Group,
  PasswordInput,
  Stack,
  Switch,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { IconBell, IconLock, IconUpload, IconUser } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { useSnapshot } from 'valtio';
import { authApi } from '@/features/auth/api/auth';
import { session, signOut } from '@/features/auth/stores/session';
import { ApiError, errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import type { NotificationPrefs } from '../api/settings';
import { account, accountActions as act, emailChanged, passwordErrors } from '../stores/account';
import { ProviderConfirmButtons } from './ProviderConfirm';
import { TwoFactorSetting } from './TwoFactorSetting';

function ProfileTab() {
  const a = useSnapshot(account);
  const { user } = useSnapshot(session);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.saveProfile();
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="md">
        <Group gap="md" wrap="wrap">
          <Avatar src={user?.profilePicture || null} name={user?.name || 'User'} color="initials" size={72} alt="Profile picture" />
          <Stack gap={4}>
            <FileButton onChange={(f) => void act.uploadAvatar(f)} accept="image/*">
              {(props) => (
                <Button {...props} variant="light" leftSection={<IconUpload size={16} />} loading={a.uploadingAvatar}>
                  Upload Avatar
                </Button>
              )}
            </FileButton>
            <Text size="xs" c={a.avatarError ? 'red' : 'dimmed'}>
              {a.avatarError ?? 'PNG, JPEG, GIF or WebP image'}
            </Text>
          </Stack>
        </Group>
        <TextInput label="Full Name" value={a.name} onChange={(e) => (account.name = e.currentTarget.value)} maw={480} />
        <TextInput
          label="Email Address"
          type="email"
          required
          value={a.email}
          onChange={(e) => (account.email = e.currentTarget.value)}
          maw={480}
        />
        {emailChanged(a.email, user?.email) &&
          (user?.hasPassword !== false ? (
            <PasswordInput
              label="Current Password"
              description="Needed to change your email address. We send a confirmation link to the new one."
              autoComplete="current-password"
              value={a.emailPassword}
              onChange={(e) => (account.emailPassword = e.currentTarget.value)}
              maw={480}
            />
          ) : (
            <Stack gap="xs" maw={480} data-testid="oauth-email-note">
              <Text size="sm" c="dimmed">
                Your account has no password, so confirm it is you by signing in again with Google or GitHub,
                then save your new email within 10 minutes. It changes once you follow the confirmation link we
                send to the new address.
              </Text>
              <ProviderConfirmButtons />
            </Stack>
          ))}
        {a.pendingEmail && (
          <Text size="sm" c="blue" maw={480} data-testid="pending-email">
            Waiting for confirmation of {a.pendingEmail}: follow the link we sent there to finish the change.
          </Text>
        )}
        <Group>
          <Button type="submit" loading={a.savingProfile}>
            Save Changes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Ends every session of the account on the server (a lost laptop, a shared computer). */
function SignOutEverywhere() {
  const navigate = useNavigate();
  const [ending, setEnding] = useState(false);
  const endAll = async () => {
    setEnding(true);
    try {
      await authApi.logoutEverywhere();
    } catch (err) {
      // This session was already ended (elsewhere, a moment ago): signed out all the same.
      if (err instanceof ApiError && err.status === 401) {
        signOut();
        navigate('/login', { replace: true });
        return;
      }
      setEnding(false);
      notify.error('Could not end all sessions', errorMessage(err, 'Please try again'));
      return;
    }
    signOut();
    navigate('/login', { replace: true });
  };
  return (
    <Card withBorder padding="md" maw={480}>
      <Stack gap="xs">
        <Text fw={500}>Sessions</Text>
        <Text size="sm" c="dimmed">
          Signs out every browser and device signed in to your account, this one included.
        </Text>
        <Group>
          <Button variant="light" color="red" loading={ending} onClick={() => void endAll()}>
            End all sessions
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function SecurityTab() {
  const a = useSnapshot(account);
  const { user } = useSnapshot(session);
  const needsCurrent = user?.hasPassword !== false;
  const [showCurrent, setShowCurrent] = useState(false);
  const errors = passwordErrors(a.password, needsCurrent);
  // The mismatch shows as soon as the confirmation is typed; the rest after a save attempt.
  const shown = (field: keyof typeof errors) =>
    a.passwordSubmitted || (field === 'confirmPassword' && a.password.confirmPassword.length > 0) ? errors[field] : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act.changePassword();
  };
  return (
    <Stack gap="lg">
      <form onSubmit={submit} noValidate>
        <Stack gap="md" maw={480}>
          {needsCurrent ? (
            <PasswordInput
              label="Current Password"
              autoComplete="current-password"
              value={a.password.currentPassword}
              onChange={(e) => act.setPassword('currentPassword', e.currentTarget.value)}
              error={shown('currentPassword')}
              visible={showCurrent}
              onVisibilityChange={setShowCurrent}
              visibilityToggleButtonProps={{ 'aria-label': showCurrent ? 'Hide password' : 'Show password', tabIndex: 0 }}
            />
          ) : (
            <Text size="sm" c="dimmed">
              Your account signs in through Google or GitHub; you may set a password as well.
            </Text>
          )}
          <TextInput
            label="New Password"
            type="password"
            autoComplete="new-password"
            value={a.password.newPassword}
            onChange={(e) => act.setPassword('newPassword', e.currentTarget.value)}
            error={shown('newPassword')}
          />
          <TextInput
            label="Confirm Password"
            type="password"
            autoComplete="new-password"
            value={a.password.confirmPassword}
            onChange={(e) => act.setPassword('confirmPassword', e.currentTarget.value)}
            error={shown('confirmPassword')}
          />
          <Group>
            <Button type="submit" loading={a.savingPassword}>
              Save Changes
            </Button>
          </Group>
        </Stack>
      </form>
      <SignOutEverywhere />
      <TwoFactorSetting />
    </Stack>
  );
}

const PREFS: { key: keyof NotificationPrefs; label: string; description: string }[] = [
  { key: 'emailNotifications', label: 'Email Notifications', description: 'Receive updates about your assistants by email' },
  { key: 'pushNotifications', label: 'Push Notifications', description: 'Browser notifications while the dashboard is open' },
  { key: 'weeklyReports', label: 'Weekly Reports', description: 'A weekly summary of conversations and leads' },
  { key: 'securityAlerts', label: 'Security Alerts', description: 'Sign-ins and password changes on your account' },
];

function NotificationsTab() {
  const a = useSnapshot(account);
  return (
    <Stack gap="md" maw={560}>
      {a.prefsError && <Text c="red">{a.prefsError}</Text>}
      {PREFS.map((p) => (
        <Switch
          key={p.key}
          id={`pref-${p.key}`}
          label={p.label}
          description={p.description}
          checked={a.prefs[p.key]}
          disabled={!a.prefsLoaded}
          onChange={(e) => act.setPref(p.key, e.currentTarget.checked)}
        />
      ))}
      <Group>
        <Button onClick={() => void act.savePrefs()} loading={a.savingPrefs} disabled={!a.prefsLoaded}>
          Save Changes
        </Button>
      </Group>
    </Stack>
  );
}

export function AccountSettings() {
  useEffect(() => {
    void act.open();
  }, []);
  return (
    <Tabs defaultValue="profile">
      <Tabs.List mb="lg">
        <Tabs.Tab value="profile" leftSection={<IconUser size={16} />}>
          Profile
        </Tabs.Tab>
        <Tabs.Tab value="security" leftSection={<IconLock size={16} />}>
          Security
        </Tabs.Tab>
        <Tabs.Tab value="notifications" leftSection={<IconBell size={16} />}>
          Notifications
        </Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="profile">
        <ProfileTab />
      </Tabs.Panel>
      <Tabs.Panel value="security">
        <SecurityTab />
      </Tabs.Panel>
      <Tabs.Panel value="notifications">
        <NotificationsTab />
      </Tabs.Panel>
    </Tabs>
  );
}
