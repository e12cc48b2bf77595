import { useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Loader, Stack, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { authApi } from '@/features/auth/api/auth';
import { session, updateUser } from '@/features/auth/stores/session';
import { errorMessage } from '@/lib/api';

/**
 * The link mailed at sign-up or for a new address: `/verify-email?token=`. The page posts the
 * token (a GET would let a mail scanner confirm an address change just by prefetching the link).
 */
export function VerifyEmailRoute() {
  const [params] = useSearchParams();
  const started = useRef(false);
  const [state, setState] = useState<{ ok: boolean; message: string } | null>(null);

  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice; a link works once
    started.current = true;
    const token = params.get('token') ?? '';
    authApi
      .verifyEmail(token)
      .then(({ message, user }) => {
        if (session.user?._id === user._id) updateUser({ email: user.email, emailVerified: true });
        setState({ ok: true, message });
      })
      .catch((err) => setState({ ok: false, message: errorMessage(err, 'This link is invalid or was already used.') }));
  }, [params]);

  return (
    <AuthLayout title="Email address" subtitle="Confirming the link from your email">
      {!state && (
        <Stack align="center">
          <Loader />
        </Stack>
      )}
      {state && (
        <Alert color={state.ok ? 'green' : 'red'} variant="light">
          {state.message}
        </Alert>
      )}
      <Text size="sm" ta="center">
        <Anchor component={Link} to={session.loggedIn ? '/dashboard' : '/login'}>
          {session.loggedIn ? 'Go to Dashboard' : 'Sign in'}
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
