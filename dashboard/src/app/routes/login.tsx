import { Alert, Anchor, Divider, Text } from '@mantine/core';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { LoginForm } from '@/features/auth/components/LoginForm';
import { OAuthButtons } from '@/features/auth/components/OAuthButtons';
import { loadBots } from '@/features/bots/stores/bots';
import { redirectTarget } from './guards';

export function LoginRoute() {
  const navigate = useNavigate();
  const location = useLocation();
  // A Google/GitHub sign-in the server refused comes back with what to do.
  const [params] = useSearchParams();
  const refused = params.get('error');
  return (
    <AuthLayout title="Sign in" subtitle="Welcome back to Parley">
      {refused && (
        <Alert color="red" variant="light">
          {refused}
        </Alert>
      )}
      <OAuthButtons />
      <Divider label="or with email" labelPosition="center" />
      <LoginForm
        onSignedIn={() => {
          void loadBots();
          navigate(redirectTarget(location.state), { replace: true });
        }}
      />
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
    </AuthLayout>
  );
}
