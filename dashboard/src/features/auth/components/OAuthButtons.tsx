import { useState } from 'react';
import { Button, Center, Loader, Overlay, Stack, Text } from '@mantine/core';
import { IconBrandGithub, IconBrandGoogle } from '@tabler/icons-react';
import { oauthUrl } from '../api/auth';

type Provider = 'google' | 'github';

/** Google and GitHub sign-in: the browser leaves for the provider, so "signing in" lasts until it does. */
export function OAuthButtons({ verb = 'Continue' }: { verb?: string }) {
  const [signingIn, setSigningIn] = useState<Provider | null>(null);

  const go = (provider: Provider) => {
    setSigningIn(provider);
    window.location.assign(oauthUrl(provider));
  };

  return (
    <>
      <Stack gap="sm">
        <Button
          variant="default"
          leftSection={<IconBrandGoogle size={18} />}
          onClick={() => go('google')}
          disabled={signingIn !== null}
        >
          {signingIn === 'google' ? 'Signing in...' : `${verb} with Google`}
        </Button>
        <Button
          variant="default"
          leftSection={<IconBrandGithub size={18} />}
          onClick={() => go('github')}
          disabled={signingIn !== null}
        >
          {signingIn === 'github' ? 'Signing in...' : `${verb} with GitHub`}
        </Button>
      </Stack>
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
