// The Security tab's Two-Factor Authentication switch and its two dialogs: turning it on (scan the
// QR code or type the key, confirm with a first code, keep the recovery codes) and turning it off.
// The switch moves only once the server has agreed.
import { useEffect, type FormEvent } from 'react';
import {
  Alert,
  Button,
  Card,
  Center,
  Code,
  CopyButton,
  Group,
  Image,
  List,
  Loader,
  PasswordInput,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useSnapshot } from 'valtio';
import { LazyModal } from '@/components/LazyOverlays';
import { session } from '@/features/auth/stores/session';
import { twoFactor, twoFactorActions as act } from '../stores/twoFactor';
import { ProviderConfirmButtons } from './ProviderConfirm';

/** The server's SVG document as an image source (the CSP allows data: images). */
export const svgDataUrl = (svg: string) => `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;

/** The key in groups of four, as authenticator apps show and take it. */
export const groupedKey = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

function Refusal() {
  const t = useSnapshot(twoFactor);
  if (!t.error) return null;
  return (
    <Alert color="red" variant="light" role="alert">
      <Stack gap="xs">
        <Text size="sm">{t.error}</Text>
        {t.needsProviderSignIn && <ProviderConfirmButtons />}
      </Stack>
    </Alert>
  );
}

function CurrentPassword() {
  const t = useSnapshot(twoFactor);
  const { user } = useSnapshot(session);
  if (user?.hasPassword === false) return null;
  return (
    <PasswordInput
      label="Current Password"
      autoComplete="current-password"
      value={t.currentPassword}
      onChange={(e) => (twoFactor.currentPassword = e.currentTarget.value)}
    />
  );
}

function RecoveryCodes({ codes }: { codes: readonly string[] }) {
  return (
    <Stack gap="md">
      <Text size="sm">
        Two-factor authentication is on. If you lose your phone, sign in with one of these recovery codes
        instead of a code from the app. Each code works once. Keep them somewhere safe, such as a password
        manager: they are not shown again.
      </Text>
      <List listStyleType="none" spacing={4} aria-label="Recovery codes" data-testid="recovery-codes">
        {codes.map((c) => (
          <List.Item key={c}>
            <Code fz="sm">{c}</Code>
          </List.Item>
        ))}
      </List>
      <Group justify="flex-end">
        <CopyButton value={codes.join('\n')} timeout={2000}>
          {({ copied, copy }) => (
            <Button variant="light" color={copied ? 'teal' : undefined} onClick={copy}>
              {copied ? 'Copied' : 'Copy all codes'}
            </Button>
          )}
        </CopyButton>
        <Button onClick={act.close}>Done</Button>
      </Group>
    </Stack>
  );
}

function EnableForm() {
  const t = useSnapshot(twoFactor);
  const { user } = useSnapshot(session);
  const ready = !!t.code.trim() && (user?.hasPassword === false || !!t.currentPassword);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (ready) void act.enable();
  };
  if (t.loadingSetup) {
    return (
      <Center py="xl">
        <Loader aria-label="Preparing the set-up" />
      </Center>
    );
  }
  if (!t.setup) {
    // The set-up itself was refused.
    return (
      <Stack gap="md">
        <Refusal />
        <Group justify="flex-end">
          <Button variant="default" onClick={act.close}>
            Close
          </Button>
        </Group>
      </Stack>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">
          Scan this QR code with your authenticator app (such as Google Authenticator, Microsoft Authenticator or
          1Password), then enter the 6-digit code it shows.
        </Text>
        {t.setup.qrSvg && (
          <Center>
            <Image src={svgDataUrl(t.setup.qrSvg)} alt="QR code for your authenticator app" w={200} h={200} fit="contain" />
          </Center>
        )}
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            Cannot scan it? Enter this key in the app instead:
          </Text>
          <Group gap="xs" wrap="nowrap" justify="space-between">
            <Code fz="sm" data-testid="two-factor-secret" style={{ wordBreak: 'break-word', flex: 1 }}>
              {groupedKey(t.setup.secret)}
            </Code>
            <CopyButton value={t.setup.secret} timeout={2000}>
              {({ copied, copy }) => (
                <Button size="xs" variant="light" color={copied ? 'teal' : undefined} onClick={copy} style={{ flexShrink: 0 }}>
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
          </Group>
        </Stack>
        <TextInput
          label="6-digit code"
          autoComplete="one-time-code"
          inputMode="numeric"
          value={t.code}
          onChange={(e) => (twoFactor.code = e.currentTarget.value)}
          data-autofocus
        />
        <CurrentPassword />
        <Refusal />
        <Group justify="flex-end">
          <Button variant="default" onClick={act.close} disabled={t.busy}>
            Cancel
          </Button>
          <Button type="submit" loading={t.busy} disabled={!ready}>
            Turn on
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function DisableForm() {
  const t = useSnapshot(twoFactor);
  const { user } = useSnapshot(session);
  const ready = !!t.code.trim() && (user?.hasPassword === false || !!t.currentPassword);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (ready) void act.disable();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <Text size="sm">Sign-in will ask for your password (or Google or GitHub) only. Your recovery codes stop working.</Text>
        <CurrentPassword />
        <TextInput
          label="Code from your app or a recovery code"
          autoComplete="one-time-code"
          value={t.code}
          onChange={(e) => (twoFactor.code = e.currentTarget.value)}
          data-autofocus
        />
        <Refusal />
        <Group justify="flex-end">
          <Button variant="default" onClick={act.close} disabled={t.busy}>
            Cancel
          </Button>
          <Button type="submit" color="red" loading={t.busy} disabled={!ready}>
            Turn off
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function TwoFactorSetting() {
  const t = useSnapshot(twoFactor);
  const { user } = useSnapshot(session);
  const on = user?.twoFactorEnabled === true;
  useEffect(() => {
    void act.load();
  }, []);
  return (
    <Card withBorder padding="md" maw={480}>
      <Stack gap="xs">
        <Switch
          id="two-factor"
          label="Two-Factor Authentication"
          description={on ? 'Sign-in asks for a code from your authenticator app' : 'Add a code from an authenticator app to your sign-in'}
          checked={on}
          onChange={() => (on ? act.startDisable() : void act.startEnable())}
        />
        {on && t.recoveryCodesLeft !== null && (
          <Text size="xs" c={t.recoveryCodesLeft > 0 ? 'dimmed' : 'orange'} data-testid="recovery-codes-left">
            {t.recoveryCodesLeft > 0
              ? `${t.recoveryCodesLeft} recovery ${t.recoveryCodesLeft === 1 ? 'code' : 'codes'} left`
              : 'No recovery codes left: turn two-factor authentication off and on again for new ones.'}
          </Text>
        )}
      </Stack>
      <LazyModal
        opened={t.dialog === 'enable'}
        onClose={() => !t.busy && act.close()}
        onExitTransitionEnd={act.forget}
        // The recovery codes are shown once: a stray click beside the dialog must not lose them.
        closeOnClickOutside={!t.recoveryCodes}
        title={t.recoveryCodes ? 'Save your recovery codes' : 'Turn on two-factor authentication'}
        centered
      >
        {t.recoveryCodes ? <RecoveryCodes codes={t.recoveryCodes} /> : <EnableForm />}
      </LazyModal>
      <LazyModal
        opened={t.dialog === 'disable'}
        onClose={() => !t.busy && act.close()}
        onExitTransitionEnd={act.forget}
        title="Turn off two-factor authentication"
        centered
      >
        <DisableForm />
      </LazyModal>
    </Card>
  );
}
