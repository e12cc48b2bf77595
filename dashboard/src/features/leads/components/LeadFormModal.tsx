// The Create Lead and Edit Lead modals: every editable field, checked here with the server's
// words (spec 1 §5: a new lead needs a bot) before anything is sent.
import { useEffect, useState } from 'react';
import { Button, Group, Modal, NativeSelect, NumberInput, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { leadsApi, type Assignee, type Lead, type LeadInput } from '../api/leads';
import { emptyForm, formOf, PRIORITY_OPTIONS, STATUS_OPTIONS, validateLead } from '../stores/format';

export interface BotOption {
  value: string;
  label: string;
}

interface Props {
  opened: boolean;
  /** The lead being edited; none for Create. */
  lead: Lead | null;
  /** Bots a lead may be created for (the caller edits leads there). */
  bots: BotOption[];
  defaultBotId: string;
  onClose: () => void;
  onSubmit: (input: LeadInput) => Promise<boolean>;
}

export function LeadFormModal({ opened, lead, bots, defaultBotId, onClose, onSubmit }: Props) {
  const creating = !lead;
  const [form, setForm] = useState<LeadInput>(() => (lead ? formOf(lead) : emptyForm(defaultBotId)));
  const [errors, setErrors] = useState<Partial<Record<keyof LeadInput, string>>>({});
  const [saving, setSaving] = useState(false);
  const [team, setTeam] = useState<Assignee[]>([]);

  useEffect(() => {
    if (!opened) return;
    setForm(lead ? formOf(lead) : emptyForm(defaultBotId));
    setErrors({});
  }, [opened, lead, defaultBotId]);

  // Who the lead can be assigned to: the bot's owner and active members.
  const botId = form.botId ?? '';
  useEffect(() => {
    if (!opened || !botId) {
      setTeam([]);
      return;
    }
    let live = true;
    leadsApi.assignees(botId).then(
      (t) => live && setTeam(t),
      () => live && setTeam([]),
    );
    return () => {
      live = false;
    };
  }, [opened, botId]);

  const set = <K extends keyof LeadInput>(key: K, value: LeadInput[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const submit = async () => {
    const found = validateLead(form, creating);
    setErrors(found);
    if (Object.keys(found).length) return;
    setSaving(true);
    const input = { ...form };
    if (!creating) delete input.botId;
    const ok = await onSubmit(input);
    setSaving(false);
    if (ok) onClose();
  };

  const assigneeOptions = [{ value: '', label: 'Unassigned' }, ...team.map((m) => ({ value: m.userId, label: m.name || m.email }))];

  return (
    <Modal opened={opened} onClose={onClose} title={creating ? 'Create Lead' : 'Edit Lead'} size="lg" centered>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack gap="sm">
          {creating && (
            <NativeSelect
              label="Bot"
              data={[{ value: '', label: 'Select a bot' }, ...bots]}
              value={form.botId ?? ''}
              onChange={(e) => set('botId', e.currentTarget.value)}
              error={errors.botId}
              required
            />
          )}
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="Name" value={form.name} onChange={(e) => set('name', e.currentTarget.value)} error={errors.name} />
            <TextInput label="Email" type="email" value={form.email} onChange={(e) => set('email', e.currentTarget.value)} error={errors.email} />
            <TextInput label="Phone" type="tel" value={form.phone} onChange={(e) => set('phone', e.currentTarget.value)} error={errors.phone} />
            <TextInput label="Company" value={form.company} onChange={(e) => set('company', e.currentTarget.value)} error={errors.company} />
            <NativeSelect label="Status" data={STATUS_OPTIONS} value={form.status} onChange={(e) => set('status', e.currentTarget.value)} />
            <NativeSelect label="Priority" data={PRIORITY_OPTIONS} value={form.priority} onChange={(e) => set('priority', e.currentTarget.value)} />
            <NumberInput
              label="Lead Score"
              min={0}
              max={100}
              allowDecimal={false}
              value={form.leadScore}
              onChange={(v) => set('leadScore', typeof v === 'number' ? v : Number.NaN)}
              error={errors.leadScore}
            />
            <NativeSelect
              label="Assigned To"
              data={assigneeOptions}
              value={form.assignedTo ?? ''}
              onChange={(e) => set('assignedTo', e.currentTarget.value || null)}
            />
            <TextInput
              label="Last Contact"
              type="datetime-local"
              value={toLocalInput(form.lastContact)}
              onChange={(e) => set('lastContact', fromLocalInput(e.currentTarget.value))}
            />
            <TextInput label="Tags" description="Comma-separated" value={form.tags} onChange={(e) => set('tags', e.currentTarget.value)} />
          </SimpleGrid>
          <Textarea label="Notes" autosize minRows={3} value={form.notes} onChange={(e) => set('notes', e.currentTarget.value)} error={errors.notes} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={saving}>
              {creating ? 'Create Lead' : 'Save Changes'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** An RFC 3339 time as the datetime-local input wants it (local time, minutes). */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
