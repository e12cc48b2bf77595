import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import type { LeadData } from '../api/chat';

export function LeadModal({
  opened,
  message,
  onSkip,
  onContinue,
}: {
  opened: boolean;
  message: string;
  onSkip: () => void;
  onContinue: (lead: LeadData) => void;
}) {
  const [form, setForm] = useState<LeadData>({ name: '', email: '', phone: '', company: '' });
  const field = (k: keyof LeadData) => ({
    value: form[k] ?? '',
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const v = e.currentTarget.value;
      setForm((f) => ({ ...f, [k]: v }));
    },
  });
  return (
    <Modal opened={opened} onClose={onSkip} title="Get Better Support" centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onContinue(form);
        }}
        noValidate
      >
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {message}
          </Text>
          <TextInput label="Name" {...field('name')} />
          <TextInput label="Email" type="email" {...field('email')} />
          <TextInput label="Phone (Optional)" type="tel" {...field('phone')} />
          <TextInput label="Company (Optional)" {...field('company')} />
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onSkip}>
              Skip
            </Button>
            <Button type="submit">Continue</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
