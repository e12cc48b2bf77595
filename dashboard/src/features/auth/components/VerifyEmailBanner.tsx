import { useState } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { useSnapshot } from 'valtio';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { authApi } from '../api/auth';
import { session } from '../stores/session';

/** Shown while the signed-in user's address is unverified: they cannot accept invitations yet. */
export function VerifyEmailBanner() {
  const snap = useSnapshot(session);
  const [busy, setBusy] = useState(false);
  if (snap.user?.emailVerified !== false) return null;

  const resend = async () => {
    setBusy(true);
    try {
      const { message } = await authApi.resendVerification();
      notify.success('Verification email sent', message);
    } catch (err) {
      notify.error('Verification email not sent', errorMessage(err, 'Failed to send the verification email'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Alert color="yellow" variant="light" mb="md" title="Verify your email address">
      <Group justify="space-between" gap="sm">
        <Text size="sm">
          We sent a link to {snap.user.email}. Until you follow it, you cannot accept team invitations.
        </Text>
        <Button size="xs" variant="light" color="yellow" loading={busy} onClick={() => void resend()}>
          Resend
        </Button>
      </Group>
    </Alert>
  );
}
