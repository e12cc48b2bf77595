// "Confirm with Google / GitHub": an account without a password proves it is its owner by a fresh
// provider sign-in, which comes back to Settings (see returnAfterSignIn).
import { Button, Group } from '@mantine/core';
import { oauthUrl } from '@/features/auth/api/auth';
import { returnAfterSignIn } from '@/features/auth/stores/after-sign-in';

export function ProviderConfirmButtons() {
  return (
    <Group gap="xs">
      {(['google', 'github'] as const).map((provider) => (
        <Button
          key={provider}
          component="a"
          href={oauthUrl(provider)}
          size="xs"
          variant="default"
          onClick={() => returnAfterSignIn('/settings')}
        >
          Confirm with {provider === 'google' ? 'Google' : 'GitHub'}
        </Button>
      ))}
    </Group>
  );
}
