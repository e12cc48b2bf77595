// Resolve with a rating (default 5) and optional notes. The inbox calls it Mark Resolved with a
// Satisfaction Rating and Feedback; the agent dashboard Resolve Session with Customer Satisfaction
// and Resolution Notes (spec 2 §2).
import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { emptyResolveForm, resolveFormError, type ResolveForm } from '../stores/rules';
import { StarRating } from './StarRating';

export interface ResolveTexts {
  title: string;
  question?: string;
  ratingLabel: string;
  notesLabel: string;
  notesPlaceholder?: string;
  submit: string;
}

export const INBOX_RESOLVE: ResolveTexts = {
  title: 'Mark Resolved',
  ratingLabel: 'Satisfaction Rating',
  notesLabel: 'Feedback',
  notesPlaceholder: 'Optional feedback about this conversation',
  submit: 'Mark Resolved',
};

export const DASHBOARD_RESOLVE: ResolveTexts = {
  title: 'Resolve Session',
  question: 'How would you rate this conversation?',
  ratingLabel: 'Customer Satisfaction',
  notesLabel: 'Resolution Notes',
  notesPlaceholder: 'Any notes about this conversation...',
  submit: 'Resolve Session',
};

export function ResolveModal({
  opened,
  onClose,
  onResolve,
  texts,
}: {
  opened: boolean;
  onClose: () => void;
  onResolve: (form: ResolveForm) => Promise<boolean>;
  texts: ResolveTexts;
}) {
  const [form, setForm] = useState<ResolveForm>(emptyResolveForm);
  const [busy, setBusy] = useState(false);
  const error = resolveFormError(form);

  const close = () => {
    setForm(emptyResolveForm());
    onClose();
  };
  const submit = async () => {
    if (error) return;
    setBusy(true);
    const ok = await onResolve(form);
    setBusy(false);
    if (ok) close();
  };

  return (
    <Modal opened={opened} onClose={close} title={texts.title} centered>
      <Stack>
        {texts.question && <Text>{texts.question}</Text>}
        <StarRating label={texts.ratingLabel} value={form.rating} onChange={(rating) => setForm((f) => ({ ...f, rating }))} />
        <Textarea
          label={texts.notesLabel}
          placeholder={texts.notesPlaceholder}
          value={form.notes}
          onChange={(e) => {
            const notes = e.currentTarget.value;
            setForm((f) => ({ ...f, notes }));
          }}
          autosize
          minRows={3}
          error={form.notes.trim().length > 2000 ? error : undefined}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={busy} disabled={!!error}>
            {texts.submit}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
