import { useState, type FormEvent } from 'react';
import { Alert, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { errorMessage } from '@/lib/api';
import { authApi, needsCode, TWO_FACTOR_PROMPT } from '../api/auth';
import { signInWithToken } from '../stores/session';

const NOT_LOADED = 'Signed in, but your account could not be loaded. Please try again.';

/** The code step of a sign-in: the challenge for `POST /api/auth/two-factor`, and where it came
 * from (a password here, or a Google or GitHub sign-in that came back with it). */
interface CodeStep {
  challenge: string;
  message: string;
  viaProvider: boolean;
}

/**
 * Email + password sign-in, then, for an account with two-factor sign-in on, the code from the
 * authenticator app (or a recovery code). `challenge` starts at the code step (a Google or GitHub
 * sign-in came back with one). Calls `onSignedIn` once the token is stored and the user loaded;
 * `onCodeStep` says when the code step shows or goes.
 */
export function LoginForm({
  onSignedIn,
  challenge,
  onCodeStep,
}: {
  onSignedIn: (how: { viaProvider: boolean }) => void;
  challenge?: string | null;
  onCodeStep?: (shown: boolean) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [step, setStep] = useState<CodeStep | null>(() =>
    challenge ? { challenge, message: TWO_FACTOR_PROMPT, viaProvider: true } : null,
  );
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const showStep = (next: CodeStep | null) => {
    setStep(next);
    setCode('');
    setError(null);
    onCodeStep?.(next !== null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const reply = await authApi.login(email.trim(), password);
      if (needsCode(reply)) {
        showStep({ challenge: reply.challenge, message: reply.message || TWO_FACTOR_PROMPT, viaProvider: false });
      } else if (await signInWithToken(reply.token)) onSignedIn({ viaProvider: false });
      else setError(NOT_LOADED);
    } catch (err) {
      setError(errorMessage(err, 'Sign-in failed. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    if (!step || !code.trim()) return;
    setError(null);
    setBusy(true);
    try {
      const { token } = await authApi.twoFactor(step.challenge, code.trim());
      if (await signInWithToken(token)) onSignedIn({ viaProvider: step.viaProvider });
      else setError(NOT_LOADED);
    } catch (err) {
      setError(errorMessage(err, 'The code could not be checked. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  const alert = error && (
    <Alert color="red" variant="light" role="alert">
      {error}
    </Alert>
  );

  if (step) {
    return (
      <form onSubmit={verify} noValidate>
        <Stack gap="sm">
          {alert}
          <Text size="sm">{step.message}</Text>
          <TextInput
            label="Authentication code"
            description="Or one of your recovery codes"
            required
            autoComplete="one-time-code"
            autoFocus
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
          />
          <Button type="submit" loading={busy} disabled={!code.trim()}>
            Verify
          </Button>
          <Button
            variant="subtle"
            size="compact-sm"
            disabled={busy}
            onClick={() => {
              setPassword('');
              showStep(null);
            }}
          >
            Use a different account
          </Button>
        </Stack>
      </form>
    );
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {alert}
        <TextInput
          label="Email"
          type="email"
          required
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <PasswordInput
          label="Password"
          required
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <Button type="submit" loading={busy} disabled={!email.trim() || !password}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}
