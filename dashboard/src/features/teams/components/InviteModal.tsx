// The Invite Member modal: email, role (admin, editor, viewer, agent; viewer by default) with
// what the role may do, the server's answer inline, closing 1.5 s after a success.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Group, List, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import type { MemberRole, RoleOption } from '../api/team';
import { INVITE_CLOSE_MS, inviteEmailError, inviteMember, roleColor } from '../stores/team';

export function InviteModal({
  botId,
  roles,
  opened,
  onClose,
}: {
  botId: string;
  roles: readonly RoleOption[];
  opened: boolean;
  onClose: () => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('viewer');
  const [submitted, setSubmitted] = useState(false);
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const closing = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (opened) {
      setEmail('');
      setRole('viewer');
      setSubmitted(false);
      setResult(null);
    }
    return () => {
      if (closing.current) clearTimeout(closing.current);
    };
  }, [opened]);

  const emailError = submitted ? inviteEmailError(email) : null;
  const chosen = roles.find((r) => r.value === role);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    if (inviteEmailError(email)) return;
    setSending(true);
    setResult(null);
    const outcome = await inviteMember(botId, email, role);
    setSending(false);
    setResult(outcome);
    if (outcome.ok) closing.current = setTimeout(onClose, INVITE_CLOSE_MS);
  }

  return (
    <Modal opened={opened} onClose={onClose} title="Invite Member" centered>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput
            label="Email Address"
            type="email"
            placeholder="colleague@example.com"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={emailError}
            data-autofocus
          />
          <Select
            label="Role"
            data={roles.map((r) => ({ value: r.value, label: r.label }))}
            value={role}
            onChange={(v) => v && setRole(v as MemberRole)}
            allowDeselect={false}
            comboboxProps={{ withinPortal: false }}
          />
          {chosen && (
            <Stack gap={6} data-testid="role-permissions">
              <Group gap={6}>
                {chosen.chips.map((c) => (
                  <Badge key={c} size="sm" variant="light" color={roleColor(chosen.value)}>
                    {c}
                  </Badge>
                ))}
              </Group>
              <List size="sm" c="dimmed">
                {chosen.permissions.map((p) => (
                  <List.Item key={p}>{p}</List.Item>
                ))}
              </List>
            </Stack>
          )}
          {result && (
            <Alert color={result.ok ? 'green' : 'red'} role={result.ok ? 'status' : 'alert'}>
              <Text size="sm">{result.message}</Text>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={sending} disabled={result?.ok === true}>
              Send Invitation
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
