import { useEffect, useRef } from 'react';
import { Center, Loader, Stack, Text } from '@mantine/core';
import { useLocation, useNavigate } from 'react-router';
import { takeReturnPath } from '@/features/auth/stores/after-sign-in';
import { signInWithToken } from '@/features/auth/stores/session';
import { loadBots } from '@/features/bots/stores/bots';
import { notify } from '@/lib/notify';

/**
 * The token of `/auth-success#token=…`. The server puts it in the fragment, which browsers never
 * send to a server (no access log or Referer sees it); `?token=` (the spec's older form) is still
 * read.
 */
export function tokenFrom(hash: string, search: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? new URLSearchParams(search).get('token');
}

/** The end of Google/GitHub sign-in: the token becomes the session, then on to /dashboard (or
 * back to the screen that asked for the sign-in, see `returnAfterSignIn`). */
export function AuthSuccessRoute() {
  const { hash, search } = useLocation();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice; sign in once
    started.current = true;
    const token = tokenFrom(hash, search);
    if (!token) {
      navigate('/login', { replace: true });
      return;
    }
    void signInWithToken(token).then((ok) => {
      if (ok) {
        void loadBots();
        navigate(takeReturnPath('/dashboard'), { replace: true });
      } else {
        notify.error('Sign-in failed', 'Your account could not be loaded. Please try again.');
        navigate('/login', { replace: true });
      }
    });
  }, [hash, search, navigate]);

  return (
    <Center h="100vh">
      <Stack align="center" gap="xs">
        <Loader />
        <Text>Signing you in...</Text>
      </Stack>
    </Center>
  );
}
