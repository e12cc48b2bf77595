import { useState, type FormEvent } from 'react';
import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { errorMessage } from '@/lib/api';
import { authApi, PASSWORD_MIN, PASSWORD_TOO_SHORT } from '../api/auth';
import { signInWithToken } from '../stores/session';

export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';

/** Creates the account, stores its token and loads the user, then calls `onSignedUp`. */
export function SignupForm({ onSignedUp }: { onSignedUp: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [name, setName] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const mismatch = confirmPassword.length > 0 && password !== confirmPassword;
  const showMismatch = mismatch || (submitted && password !== confirmPassword);
  const tooShort = [...password].length < PASSWORD_MIN;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    setError(null);
    if (!email.trim() || !password || !confirmPassword || password !== confirmPassword || tooShort) return;
    setBusy(true);
    try {
      const { token } = await authApi.signup({
        email: email.trim(),
        password,
        confirmPassword,
        ...(name.trim() ? { name: name.trim() } : {}),
      });
      if (await signInWithToken(token)) onSignedUp();
      else setError('Your account was created, but could not be loaded. Please sign in.');
    } catch (err) {
      setError(errorMessage(err, 'Sign-up failed. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {error && (
          <Alert color="red" variant="light">
            {error}
          </Alert>
        )}
        <TextInput
          label="Email"
          type="email"
          required
          autoComplete="email"
          value={email}
          error={submitted && !email.trim() ? 'Email is required' : undefined}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <TextInput
          label="Name"
          description="Optional"
          autoComplete="name"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <PasswordInput
          label="Password"
          required
          autoComplete="new-password"
          value={password}
          description={`At least ${PASSWORD_MIN} characters`}
          error={submitted && !password ? 'Password is required' : submitted && tooShort ? PASSWORD_TOO_SHORT : undefined}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
        <PasswordInput
          label="Confirm Password"
          required
          autoComplete="new-password"
          value={confirmPassword}
          error={
            submitted && !confirmPassword
              ? 'Please confirm your password'
              : showMismatch
                ? PASSWORDS_DO_NOT_MATCH
                : undefined
          }
          onChange={(e) => setConfirmPassword(e.currentTarget.value)}
        />
        <Button type="submit" loading={busy}>
          Create account
        </Button>
      </Stack>
    </form>
  );
}
