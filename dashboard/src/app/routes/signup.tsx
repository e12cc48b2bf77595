import { useEffect, useState } from 'react';
import { Alert, Anchor, Text } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { AuthLayout } from '@/components/AuthLayout';
import { OAuthButtons } from '@/features/auth/components/OAuthButtons';
import { SignupForm } from '@/features/auth/components/SignupForm';
import { loadBots } from '@/features/bots/stores/bots';
import { takeWebsite, wizardPath } from '@/features/landing/lib/pending-website';
import { checkWebsiteUrl } from '@/features/landing/lib/website-url';

/** The spec's pause between a successful sign-up and the dashboard. */
export const SIGNUP_REDIRECT_MS = 1000;

export function SignupRoute() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (!done) return;
    // A website typed on the landing page goes on into the create wizard.
    const typed = params.get('website') ?? takeWebsite();
    const check = typed ? checkWebsiteUrl(typed) : null;
    const next = check?.ok ? wizardPath(check.url) : '/dashboard';
    const t = setTimeout(() => navigate(next, { replace: true }), SIGNUP_REDIRECT_MS);
    return () => clearTimeout(t);
  }, [done, navigate, params]);

  return (
    <AuthLayout title="Create your account" subtitle="Build your first AI assistant in minutes">
      {done ? (
        <Alert color="green" variant="light">
          Account created. Taking you to your dashboard...
        </Alert>
      ) : (
        <>
          <OAuthButtons />
          <SignupForm
            onSignedUp={() => {
              void loadBots();
              setDone(true);
            }}
          />
        </>
      )}
      <Text size="sm" ta="center">
        Already have an account?{' '}
        <Anchor component={Link} to="/login">
          Sign in
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
