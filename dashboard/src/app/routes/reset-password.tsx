import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, PasswordInput, Stack, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { authApi } from '@/features/auth/api/auth';
import { errorMessage } from '@/lib/api';

/** The reset link mailed by 'Forgot password?': `/reset-password?token=`. */
export function ResetPasswordRoute() {
  const [params] = useSearchParams();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const mismatch = confirm.length > 0 && password !== confirm;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (password !== confirm) return;
    setBusy(true);
    try {
      const { message } = await authApi.resetPassword(params.get('token') ?? '', password, confirm);
      setResult({ ok: true, message });
    } catch (err) {
      setResult({ ok: false, message: errorMessage(err, 'Failed to reset your password') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Choose a new password" subtitle="Every session of your account will be signed out">
      {result?.ok ? (
        <Alert color="green" variant="light">
          {result.message}
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            {result && (
              <Alert color="red" variant="light">
                {result.message}
              </Alert>
            )}
            <PasswordInput label="New Password" required autoComplete="new-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
            <PasswordInput
              label="Confirm Password"
              required
              autoComplete="new-password"
              value={confirm}
              error={mismatch ? 'Passwords do not match' : undefined}
              onChange={(e) => setConfirm(e.currentTarget.value)}
            />
            <Button type="submit" loading={busy} disabled={!password || !confirm || mismatch}>
              Reset password
            </Button>
          </Stack>
        </form>
      )}
      <Text size="sm" ta="center">
        <Anchor component={Link} to="/login">
          Sign in
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
