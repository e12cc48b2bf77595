import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { authApi } from '@/features/auth/api/auth';
import { errorMessage } from '@/lib/api';

/** 'Forgot password?': mails a reset link (the answer is the same whether the account exists). */
export function ForgotPasswordRoute() {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const { message } = await authApi.forgotPassword(email.trim());
      setResult({ ok: true, message });
    } catch (err) {
      setResult({ ok: false, message: errorMessage(err, 'Failed to send the reset link') });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Forgot password?" subtitle="We will email you a link to choose a new one">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {result && (
            <Alert color={result.ok ? 'green' : 'red'} variant="light">
              {result.message}
            </Alert>
          )}
          <TextInput label="Email" type="email" required autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <Button type="submit" loading={busy} disabled={!email.trim()}>
            Send reset link
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center">
        <Anchor component={Link} to="/login">
          Back to sign in
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
