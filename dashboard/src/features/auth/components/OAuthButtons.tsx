import { useEffect, useState } from 'react';
import { Button, Center, Divider, Loader, Overlay, Stack, Text } from '@mantine/core';
import { IconBrandGithub, IconBrandGoogle } from '@tabler/icons-react';
import { authApi, oauthUrl, type SignInProvider, type SignInProviders } from '../api/auth';

/** What to offer when the server cannot say: both, as before it could (a press on one it lacks
 * comes back to /login saying so). */
const BOTH: SignInProviders = { google: true, github: true };

/** The providers this server has settings for; null while it is being asked. */
function useSignInProviders(): SignInProviders | null {
  const [offered, setOffered] = useState<SignInProviders | null>(null);
  useEffect(() => {
    let current = true;
    authApi.providers().then(
      (answer) => current && setOffered({ google: answer.google === true, github: answer.github === true }),
      () => current && setOffered(BOTH),
    );
    return () => {
      current = false;
    };
  }, []);
  return offered;
}

/**
 * Google and GitHub sign-in, only those the server is set up for, and the "or with email"
 * separator under them when there is any. The browser leaves for the provider, so "signing in"
 * lasts until it does.
 */
export function OAuthButtons({ verb = 'Continue' }: { verb?: string }) {
  const [signingIn, setSigningIn] = useState<SignInProvider | null>(null);
  const offered = useSignInProviders();

  const go = (provider: SignInProvider) => {
    setSigningIn(provider);
    window.location.assign(oauthUrl(provider));
  };

  if (!offered || (!offered.google && !offered.github)) return null;
  return (
    <>
      <Stack gap="sm">
        {offered.google && (
          <Button
            variant="default"
            leftSection={<IconBrandGoogle size={18} />}
            onClick={() => go('google')}
            disabled={signingIn !== null}
          >
            {signingIn === 'google' ? 'Signing in...' : `${verb} with Google`}
          </Button>
        )}
        {offered.github && (
          <Button
            variant="default"
            leftSection={<IconBrandGithub size={18} />}
            onClick={() => go('github')}
            disabled={signingIn !== null}
          >
            {signingIn === 'github' ? 'Signing in...' : `${verb} with GitHub`}
          </Button>
        )}
      </Stack>
      <Divider label="or with email" labelPosition="center" />
      {signingIn && (
        <Overlay fixed blur={2} color="#fff" backgroundOpacity={0.7} zIndex={1000}>
          <Center h="100%">
            <Stack align="center" gap="xs">
              <Loader />
              <Text fw={500}>Signing you in...</Text>
            </Stack>
          </Center>
        </Overlay>
      )}
    </>
  );
}
