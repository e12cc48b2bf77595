import { useEffect, useRef } from 'react';
import { Center, Loader, Stack, Text } from '@mantine/core';
import { useNavigate, useSearchParams } from 'react-router';
import { takeReturnPath } from '@/features/auth/stores/after-sign-in';
import { signInWithToken } from '@/features/auth/stores/session';
import { loadBots } from '@/features/bots/stores/bots';
import { notify } from '@/lib/notify';

/** The end of Google/GitHub sign-in: `?token=` becomes the session, then on to /dashboard (or
 * back to the screen that asked for the sign-in, see `returnAfterSignIn`). */
export function AuthSuccessRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice; sign in once
    started.current = true;
    const token = params.get('token');
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
  }, [params, navigate]);

  return (
    <Center h="100vh">
      <Stack align="center" gap="xs">
        <Loader />
        <Text>Signing you in...</Text>
      </Stack>
    </Center>
  );
}
