import { useEffect, useMemo, useRef, type ReactNode } from 'react';
import {
  Alert,
  Avatar,
  Button,
  Card,
  Center,
  FileButton,
  FileInput,
  Group,
  Loader,
  Modal,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { IconFileTypePdf, IconPlayerSkipForward, IconTextCaption, IconUpload } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { useNavigate } from 'react-router';
import { errorMessage, planLimit } from '@/lib/api';
import { notify } from '@/lib/notify';
import type { Bot, FaqMethod } from '../api/bots';
import {
  ICON_TYPES,
  MAX_FAQ_TEXT,
  NAME_REQUIRED,
  basicValid,
  createWizard,
  nameValid,
  stepPosition,
  websiteError,
  trainingReady,
  type Wizard,
  type WizardStep,
} from '../stores/wizard';
import { EmbedSnippets } from './EmbedSnippets';

const STEP_TITLES: Record<WizardStep, string> = {
  basic: 'Basic Information',
  training: 'Training Data Setup',
  review: 'Review & Create',
  integration: 'Integration Code',
};

const METHOD_LABELS: Record<FaqMethod, string> = { skip: 'Skip', upload: 'Upload PDF', text: 'Enter Text' };

/**
 * The 'Create AI Assistant' wizard. A fresh wizard state each time it opens, with
 * `initialWebsite` filled in (the landing page's website box).
 */
export function CreateBotWizard({ opened, onClose, initialWebsite }: { opened: boolean; onClose: () => void; initialWebsite?: string }) {
  const wizard = useRef<Wizard | null>(null);
  if (opened && !wizard.current) wizard.current = createWizard({ websiteUrl: initialWebsite });
  useEffect(() => {
    if (!opened) wizard.current = null;
  }, [opened]);

  return (
    <Modal opened={opened} onClose={onClose} title="Create AI Assistant" size="lg" closeOnClickOutside={false}>
      {wizard.current && <WizardBody wizard={wizard.current} onClose={onClose} />}
    </Modal>
  );
}

function WizardBody({ wizard, onClose }: { wizard: Wizard; onClose: () => void }) {
  const snap = useSnapshot(wizard.state);
  const { actions } = wizard;
  const { n, total } = stepPosition(snap);

  const navigate = useNavigate();
  const create = async () => {
    try {
      const bot = await actions.create();
      if (bot) notify.success('Bot Created Successfully', `${bot.name || snap.name.trim()} is ready.`);
    } catch (err) {
      const limit = planLimit(err);
      if (limit) {
        // The plan allows no more assistants: say so and take the owner where it can change.
        notify.error('Plan limit reached', limit.message);
        onClose();
        navigate(limit.upgradeUrl ?? '/billing');
        return;
      }
      notify.error('Bot Created Failed', errorMessage(err, 'Please try again.'));
    }
  };

  return (
    <Stack gap="md">
      <Stack gap={4}>
        <Text size="sm" c="dimmed" data-testid="wizard-step">
          Step {n} of {total}
        </Text>
        <Title order={4}>{STEP_TITLES[snap.step]}</Title>
        <Progress value={(n / total) * 100} size="xs" />
      </Stack>

      {snap.step === 'basic' && <BasicStep wizard={wizard} />}
      {snap.step === 'training' && <TrainingStep wizard={wizard} />}
      {snap.step === 'review' &&
        (snap.creating ? (
          <Center py="xl">
            <Stack align="center" gap={4}>
              <Loader />
              <Text fw={600}>Creating Assistant</Text>
              <Text size="sm" c="dimmed">
                Please wait...
              </Text>
            </Stack>
          </Center>
        ) : (
          <ReviewStep wizard={wizard} />
        ))}
      {snap.step === 'integration' && snap.created && <IntegrationStep bot={snap.created as Bot} />}

      <Group justify="space-between">
        {snap.step === 'training' || (snap.step === 'review' && !snap.creating) ? (
          <Button variant="default" onClick={actions.back}>
            Back
          </Button>
        ) : (
          <span />
        )}
        {snap.step === 'basic' && (
          <Button onClick={actions.next} disabled={!basicValid(snap)}>
            Next
          </Button>
        )}
        {snap.step === 'training' && snap.faqMethod !== 'skip' && snap.faqMethod !== null && (
          <Button onClick={actions.next} disabled={!trainingReady(snap)}>
            Next
          </Button>
        )}
        {snap.step === 'review' && (
          <Button onClick={create} disabled={!basicValid(snap) || snap.creating} loading={snap.creating}>
            Create
          </Button>
        )}
        {snap.step === 'integration' && <Button onClick={onClose}>Done</Button>}
      </Group>
    </Stack>
  );
}

function BasicStep({ wizard }: { wizard: Wizard }) {
  const snap = useSnapshot(wizard.state);
  const preview = useObjectUrl(snap.icon as File | null);
  return (
    <Stack gap="sm">
      <Group gap="md">
        <Avatar src={preview} size="lg" radius="md" alt="Assistant icon" />
        <FileButton onChange={wizard.actions.setIcon} accept={ICON_TYPES}>
          {(props) => (
            <Button variant="light" size="xs" leftSection={<IconUpload size={14} />} {...props}>
              {snap.icon ? 'Change icon' : 'Upload icon'}
            </Button>
          )}
        </FileButton>
        {snap.icon && (
          <Button variant="subtle" color="gray" size="xs" onClick={() => wizard.actions.setIcon(null)}>
            Remove
          </Button>
        )}
      </Group>
      {snap.iconError && (
        <Text size="xs" c="red" role="alert">
          {snap.iconError}
        </Text>
      )}
      <TextInput
        label="Assistant Name"
        required
        placeholder="e.g. Support Assistant"
        value={snap.name}
        onChange={(e) => wizard.actions.setName(e.currentTarget.value)}
        error={snap.nameTouched && !nameValid(snap) ? NAME_REQUIRED : undefined}
        data-autofocus
      />
      <TextInput
        label="Website URL"
        type="url"
        placeholder="https://example.com"
        value={snap.websiteUrl}
        onChange={(e) => wizard.actions.setWebsiteUrl(e.currentTarget.value)}
        onBlur={wizard.actions.touchWebsite}
        error={snap.websiteTouched ? (websiteError(snap) ?? undefined) : undefined}
      />
    </Stack>
  );
}

function Choice({ selected, onClick, icon, label, hint }: { selected: boolean; onClick: () => void; icon: ReactNode; label: string; hint: string }) {
  return (
    <UnstyledButton onClick={onClick} aria-pressed={selected}>
      <Card withBorder padding="sm" h="100%" style={selected ? { borderColor: 'var(--mantine-color-blue-filled)' } : undefined}>
        <Stack gap={4} align="center">
          {icon}
          <Text fw={600} size="sm">
            {label}
          </Text>
          <Text size="xs" c="dimmed" ta="center">
            {hint}
          </Text>
        </Stack>
      </Card>
    </UnstyledButton>
  );
}

function TrainingStep({ wizard }: { wizard: Wizard }) {
  const snap = useSnapshot(wizard.state);
  const { actions } = wizard;
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, xs: 3 }}>
        <Choice selected={snap.faqMethod === 'skip'} onClick={() => actions.chooseMethod('skip')} icon={<IconPlayerSkipForward />} label="Skip" hint="Add training data later" />
        <Choice selected={snap.faqMethod === 'upload'} onClick={() => actions.chooseMethod('upload')} icon={<IconFileTypePdf />} label="Upload PDF" hint="A PDF up to 10 MB" />
        <Choice selected={snap.faqMethod === 'text'} onClick={() => actions.chooseMethod('text')} icon={<IconTextCaption />} label="Enter Text" hint="Up to 5000 characters" />
      </SimpleGrid>
      {snap.faqMethod === 'upload' && (
        <FileInput
          label="PDF document"
          accept=".pdf,application/pdf"
          placeholder="Choose a PDF"
          clearable
          value={snap.faqFile as File | null}
          onChange={actions.setFile}
          error={snap.fileError ?? undefined}
        />
      )}
      {snap.faqMethod === 'text' && (
        <Textarea
          label="Training text"
          autosize
          minRows={5}
          maxRows={12}
          maxLength={MAX_FAQ_TEXT}
          value={snap.faqText}
          onChange={(e) => actions.setText(e.currentTarget.value)}
          description={`${snap.faqText.length}/${MAX_FAQ_TEXT}`}
          inputWrapperOrder={['label', 'input', 'description', 'error']}
        />
      )}
    </Stack>
  );
}

function ReviewStep({ wizard }: { wizard: Wizard }) {
  const snap = useSnapshot(wizard.state);
  const method = snap.faqMethod ?? 'skip';
  const row = (label: string, value: ReactNode) => (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} ta="right" style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
    </Group>
  );
  return (
    <Card withBorder>
      <Stack gap="xs">
        {row('Assistant Name', snap.name.trim())}
        {row('Website URL', snap.websiteUrl.trim() || 'None')}
        {snap.websiteUrl.trim() && (
          <Text size="xs" c="dimmed" data-testid="crawl-note">
            The website is crawled and trained on as soon as the assistant is created.
          </Text>
        )}
        {row('Icon', snap.icon ? (snap.icon as File).name : 'Default')}
        {row(
          'Training data',
          method === 'upload'
            ? `${METHOD_LABELS.upload}: ${(snap.faqFile as File | null)?.name ?? ''}`
            : method === 'text'
              ? `${METHOD_LABELS.text}: ${snap.faqText.length} characters`
              : METHOD_LABELS.skip,
        )}
      </Stack>
    </Card>
  );
}

function IntegrationStep({ bot }: { bot: Bot }) {
  return (
    <Stack gap="sm">
      <Alert color="green" variant="light">
        {bot.name || 'Your assistant'} is ready. Add it to your website with one of these snippets.
      </Alert>
      <EmbedSnippets botId={bot._id} />
    </Stack>
  );
}

function useObjectUrl(file: File | null): string | null {
  const url = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => () => { if (url) URL.revokeObjectURL(url); }, [url]);
  return url;
}
