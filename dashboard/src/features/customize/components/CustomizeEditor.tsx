// The Chat Customization editor: Appearance, Layout, Content, Features, Advanced (spec 2 §2, §9).
import { createContext, useContext, type ReactNode } from 'react';
import {
  ActionIcon,
  Button,
  Card,
  ColorInput,
  Fieldset,
  ColorSwatch,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Slider,
  Stack,
  Switch,
  Tabs,
  Text,
  TextInput,
  Textarea,
  UnstyledButton,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import {
  ANIMATIONS,
  CHAT_SIZES,
  FONT_SIZES,
  MAX_QUICK_QUESTIONS,
  PALETTES,
  POSITIONS,
  SHADOWS,
  SLIDERS,
  type CustomizeSettings,
} from '../stores/model';
import { addQuestion, customize, removeQuestion, setQuestion, setSetting } from '../stores/customize';

const title = (v: string) => v.replace(/-/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
const options = (list: readonly string[]) => list.map((v) => ({ value: v, label: title(v) }));

/** True when the caller's role may only look: every control is disabled. */
const ReadOnly = createContext(false);

type NumKey = 'borderRadius' | 'typingDelay' | 'messageHistoryLimit' | 'maxMessageLength' | 'autoOpenDelay';

function SliderField({ field, label, unit }: { field: NumKey; label: string; unit: string }) {
  const value = useSnapshot(customize).settings[field];
  const r = SLIDERS[field];
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Text size="sm" fw={500} id={`slider-${field}`}>
          {label}
        </Text>
        <Text size="sm" c="dimmed" data-testid={`value-${field}`}>
          {value}
          {unit}
        </Text>
      </Group>
      <Slider
        min={r.min}
        max={r.max}
        step={r.step}
        value={value}
        onChange={(v) => setSetting(field, v)}
        disabled={useContext(ReadOnly)}
        thumbLabel={label}
        label={(v) => `${v}${unit}`}
        marks={[
          { value: r.min, label: `${r.min}` },
          { value: r.max, label: `${r.max}` },
        ]}
        mb="md"
      />
    </Stack>
  );
}

type TextKey = {
  [K in keyof CustomizeSettings]: CustomizeSettings[K] extends string ? K : never;
}[keyof CustomizeSettings];
type BoolKey = {
  [K in keyof CustomizeSettings]: CustomizeSettings[K] extends boolean ? K : never;
}[keyof CustomizeSettings];

function Field({
  field,
  label,
  type,
  long,
  rows,
  description,
  placeholder,
}: {
  field: TextKey;
  label: string;
  type?: string;
  long?: boolean;
  rows?: number;
  description?: string;
  placeholder?: string;
}) {
  const value = useSnapshot(customize).settings[field];
  if (long) {
    return (
      <Textarea
        label={label}
        description={description}
        placeholder={placeholder}
        autosize
        minRows={rows ?? 2}
        maxRows={10}
        value={value}
        onChange={(e) => setSetting(field, e.currentTarget.value)}
      />
    );
  }
  return (
    <TextInput
      label={label}
      description={description}
      placeholder={placeholder}
      type={type}
      value={value}
      onChange={(e) => setSetting(field, e.currentTarget.value)}
    />
  );
}

function Toggle({ field, label, description }: { field: BoolKey; label: string; description?: string }) {
  const value = useSnapshot(customize).settings[field];
  return (
    <Switch label={label} description={description} checked={value} onChange={(e) => setSetting(field, e.currentTarget.checked)} />
  );
}

function Section({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={6}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      {children}
    </Stack>
  );
}

function Appearance() {
  const s = useSnapshot(customize).settings;
  return (
    <Stack gap="lg">
      <Section label="Color palette">
        <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs">
          {PALETTES.map((p, i) => {
            const chosen = !s.isCustomColorMode && s.selectedPalette === i;
            return (
              <UnstyledButton
                key={p.name}
                aria-label={p.name}
                aria-pressed={chosen}
                onClick={() => {
                  setSetting('selectedPalette', i);
                  setSetting('isCustomColorMode', false);
                }}
                style={{
                  border: `2px solid ${chosen ? p.primary : 'var(--mantine-color-default-border)'}`,
                  borderRadius: 8,
                  padding: 8,
                }}
              >
                <Group gap={4} wrap="nowrap">
                  <ColorSwatch color={p.primary} size={18} />
                  <ColorSwatch color={p.secondary} size={18} />
                  <ColorSwatch color={p.background} size={18} />
                </Group>
                <Text size="xs" mt={4}>
                  {p.name}
                </Text>
              </UnstyledButton>
            );
          })}
        </SimpleGrid>
      </Section>
      <Switch
        label="Custom colors"
        checked={s.isCustomColorMode}
        onChange={(e) => setSetting('isCustomColorMode', e.currentTarget.checked)}
      />
      {s.isCustomColorMode && (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <ColorInput label="Primary color" value={s.customPrimaryColor} onChange={(v) => setSetting('customPrimaryColor', v)} format="hex" />
          <ColorInput label="Secondary color" value={s.customSecondaryColor} onChange={(v) => setSetting('customSecondaryColor', v)} format="hex" />
          <ColorInput label="Background color" value={s.customBgColor} onChange={(v) => setSetting('customBgColor', v)} format="hex" />
        </SimpleGrid>
      )}
      <Section label="Font size">
        <SegmentedControl
          aria-label="Font size"
          data={FONT_SIZES.map((f) => ({ value: f, label: f }))}
          value={s.selectedFontSize}
          onChange={(v) => setSetting('selectedFontSize', v)}
        />
      </Section>
      <Section label="Theme">
        <SegmentedControl
          aria-label="Theme"
          data={[
            { value: 'light', label: 'Light' },
            { value: 'dark', label: 'Dark' },
          ]}
          value={s.themeMode}
          onChange={(v) => setSetting('themeMode', v)}
        />
      </Section>
    </Stack>
  );
}

function Layout() {
  const s = useSnapshot(customize).settings;
  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Select label="Chat size" data={options(CHAT_SIZES)} value={s.chatSize} onChange={(v) => v && setSetting('chatSize', v)} allowDeselect={false} />
        <Select label="Position" data={options(POSITIONS)} value={s.chatPosition} onChange={(v) => v && setSetting('chatPosition', v)} allowDeselect={false} />
        <Select
          label="Animation"
          data={options(ANIMATIONS)}
          value={s.animationStyle}
          onChange={(v) => v && setSetting('animationStyle', v)}
          allowDeselect={false}
        />
      </SimpleGrid>
      <SliderField field="borderRadius" label="Border radius" unit="px" />
      <SliderField field="autoOpenDelay" label="Auto-open delay (0 = never)" unit=" s" />
      <Field field="popupMessage" label="Popup message" description="Shown beside the launcher until the chat opens; blank for none" long />
      <Section label="Shadow intensity">
        <SegmentedControl
          aria-label="Shadow intensity"
          data={options(SHADOWS)}
          value={s.shadowIntensity}
          onChange={(v) => setSetting('shadowIntensity', v)}
        />
      </Section>
    </Stack>
  );
}

function QuickQuestions() {
  const questions = useSnapshot(customize).settings.customQuestions;
  return (
    <Section label={`Quick questions (up to ${MAX_QUICK_QUESTIONS})`}>
      {questions.map((q, i) => (
        <Group key={i} gap="xs" wrap="nowrap" align="flex-end">
          <TextInput
            style={{ flex: 1 }}
            label={`Quick question ${i + 1}`}
            value={q}
            onChange={(e) => setQuestion(i, e.currentTarget.value)}
          />
          <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove quick question ${i + 1}`} onClick={() => removeQuestion(i)}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      <Button
        variant="light"
        leftSection={<IconPlus size={16} />}
        onClick={addQuestion}
        disabled={questions.length >= MAX_QUICK_QUESTIONS}
        style={{ alignSelf: 'flex-start' }}
      >
        Add question
      </Button>
    </Section>
  );
}

function Content() {
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Field field="botName" label="Bot name" />
        <Field field="placeholder" label="Input placeholder" />
      </SimpleGrid>
      <Field field="welcomeMessage" label="Welcome message" long />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Field field="headerTitle" label="Header title" />
        <Field field="headerSubtitle" label="Header subtitle" />
        <Field field="companyName" label="Company name" />
        <Field field="supportEmail" label="Support email" type="email" />
        <Field field="botAvatar" label="Bot avatar URL" type="url" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Field field="businessHours" label="Business hours" placeholder="Mon-Fri 9:00-17:00" description="Said when no agent is online" />
        <Field field="responseTime" label="Response time" placeholder="< 2 minutes" description="The wait shown after asking for a person" />
      </SimpleGrid>
      <Field field="handoverMessage" label="Handover message" description="Shown when a visitor asks for a person" long />
      <Field field="systemPrompt" label="System prompt" long rows={3} />
      <QuickQuestions />
    </Stack>
  );
}

function Features() {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
      <Toggle field="enableTypingIndicator" label="Typing indicator" />
      <Toggle field="enableQuickReplies" label="Quick replies" description="Offer the quick questions" />
      <Toggle field="enableHistory" label="Chat history" />
      <Toggle field="enableFAQ" label="FAQ" description="Offer the questions of your trained Q&A pairs" />
      <Toggle field="enableHandover" label="Human handover" />
      <Toggle field="enableLeadCapture" label="Lead capture" />
      <Toggle field="enableSounds" label="Sounds" />
      <Toggle field="showBranding" label="Show branding" />
    </SimpleGrid>
  );
}

function Advanced() {
  return (
    <Stack gap="md">
      <Field field="leadCaptureMessage" label="Lead capture message" long />
      <SliderField field="typingDelay" label="Typing delay" unit=" ms" />
      <SliderField field="messageHistoryLimit" label="Message history limit" unit="" />
      <SliderField field="maxMessageLength" label="Max message length" unit="" />
      <Field
        field="customCSS"
        label="Custom CSS"
        description="Applies inside the chat only. Style .parley-chat, .parley-header, .parley-messages, .parley-bubble (-bot, -user), .parley-suggestions, .parley-composer, .parley-footer. Pictures only as url(data:image/…); no @import."
        long
        rows={4}
      />
    </Stack>
  );
}

/** A panel's controls; a disabled fieldset disables every input and button in it at once. */
function Panel({ value, children }: { value: string; children: ReactNode }) {
  return (
    <Tabs.Panel value={value}>
      <Fieldset variant="unstyled" disabled={useContext(ReadOnly)} p={0} m={0}>
        {children}
      </Fieldset>
    </Tabs.Panel>
  );
}

export function CustomizeEditor({ readOnly = false }: { readOnly?: boolean }) {
  return (
    <ReadOnly.Provider value={readOnly}>
      <Card withBorder radius="md" p="md" data-testid="customize-editor" data-readonly={readOnly || undefined}>
        <Text fw={600} mb="sm">
          Chat Customization
        </Text>
        <Tabs defaultValue="appearance">
          <Tabs.List mb="md" style={{ flexWrap: 'wrap' }}>
            <Tabs.Tab value="appearance">Appearance</Tabs.Tab>
            <Tabs.Tab value="layout">Layout</Tabs.Tab>
            <Tabs.Tab value="content">Content</Tabs.Tab>
            <Tabs.Tab value="features">Features</Tabs.Tab>
            <Tabs.Tab value="advanced">Advanced</Tabs.Tab>
          </Tabs.List>
          <Panel value="appearance">
            <Appearance />
          </Panel>
          <Panel value="layout">
            <Layout />
          </Panel>
          <Panel value="content">
            <Content />
          </Panel>
          <Panel value="features">
            <Features />
          </Panel>
          <Panel value="advanced">
            <Advanced />
          </Panel>
        </Tabs>
      </Card>
    </ReadOnly.Provider>
  );
}
