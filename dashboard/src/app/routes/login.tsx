import { useEffect, useState } from 'react';
import { Alert, Anchor, Text } from '@mantine/core';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { LoginForm } from '@/features/auth/components/LoginForm';
import { OAuthButtons } from '@/features/auth/components/OAuthButtons';
import { takeReturnPath } from '@/features/auth/stores/after-sign-in';
import { twoFactorChallengeFrom } from '@/features/auth/stores/two-factor-challenge';
import { loadBots } from '@/features/bots/stores/bots';
import { redirectTarget } from './guards';

export function LoginRoute() {
  const navigate = useNavigate();
  const location = useLocation();
  // A Google/GitHub sign-in the server refused comes back with what to do.
  const [params] = useSearchParams();
  const refused = params.get('error');
  // One that needs its two-factor code comes back with the challenge in the fragment.
  const [challenge] = useState(() => twoFactorChallengeFrom(location.hash));
  const [codeStep, setCodeStep] = useState(challenge !== null);
  // Out of the address bar (and the history) at once, on arrival: it is half of a sign-in. The
  // router's own replace (history.replaceState) keeps its location in step with the address bar.
  useEffect(() => {
    if (challenge) navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: location.state });
  }, [challenge]);
  return (
    <AuthLayout title="Sign in" subtitle={codeStep ? 'Two-factor authentication' : 'Welcome back to Parley'}>
      {refused && !codeStep && (
        <Alert color="red" variant="light">
          {refused}
        </Alert>
      )}
      {!codeStep && <OAuthButtons />}
      <LoginForm
        challenge={challenge}
        onCodeStep={setCodeStep}
        onSignedIn={({ viaProvider }) => {
          void loadBots();
          const target = redirectTarget(location.state);
          // A Google or GitHub sign-in goes back to the screen that started it, as /auth-success does.
          navigate(viaProvider ? takeReturnPath(target) : target, { replace: true });
        }}
      />
      {!codeStep && (
        <>
          <Text size="sm" ta="center">
            <Anchor component={Link} to="/forgot-password">
              Forgot password?
            </Anchor>
          </Text>
          <Text size="sm" ta="center">
            No account yet?{' '}
            <Anchor component={Link} to="/signup" state={location.state}>
              Sign up
            </Anchor>
          </Text>
        </>
      )}
    </AuthLayout>
  );
}
