import { Anchor, Divider, Text } from '@mantine/core';
import { Link, useLocation, useNavigate } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { LoginForm } from '@/features/auth/components/LoginForm';
import { OAuthButtons } from '@/features/auth/components/OAuthButtons';
import { loadBots } from '@/features/bots/stores/bots';
import { redirectTarget } from './guards';

export function LoginRoute() {
  const navigate = useNavigate();
  const location = useLocation();
  return (
    <AuthLayout title="Sign in" subtitle="Welcome back to Parley">
      <OAuthButtons />
      <Divider label="or with email" labelPosition="center" />
      <LoginForm
        onSignedIn={() => {
          void loadBots();
          navigate(redirectTarget(location.state), { replace: true });
        }}
      />
      <Text size="sm" ta="center">
        No account yet?{' '}
        <Anchor component={Link} to="/signup" state={location.state}>
          Sign up
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
