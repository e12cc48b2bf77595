// Bot Settings: abuse protection (maximum chat text size) and the URL whitelist of one bot.
import { useEffect } from 'react';
import {
  ActionIcon,
  Button,
  Card,
  Fieldset,
  Group,
  Loader,
  NumberInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { ReadOnlyNotice } from '@/components/ReadOnlyNotice';
import {
  MAX_CHAT_TEXT_SIZE,
  MIN_CHAT_TEXT_SIZE,
  botSettings,
  botSettingsActions as act,
  chatTextSizeError,
  loadBotSettings,
} from '../stores/botSettings';

/** `readOnly` (with the caller's `role`): the values show, disabled, and nothing can be saved. */
export function BotSettingsForm({ botId, role = 'owner', readOnly = false }: { botId: string; role?: string; readOnly?: boolean }) {
  const s = useSnapshot(botSettings);
  useEffect(() => {
    void loadBotSettings(botId);
  }, [botId]);

  if (s.loading || s.botId !== botId) {
    return (
      <Group justify="center" py="xl">
        <Loader aria-label="Loading settings" />
      </Group>
    );
  }
  if (s.loadError) {
    return (
      <Stack align="center" py="xl" gap="xs">
        <Text c="red">{s.loadError}</Text>
        <Button variant="light" onClick={() => void loadBotSettings(botId)}>
          Retry
        </Button>
      </Stack>
    );
  }

  const sizeError = chatTextSizeError(s.size);
  return (
    <Stack gap="lg" maw={720}>
      {readOnly && <ReadOnlyNotice role={role} />}
      {/* A disabled fieldset disables every input and button in it at once. */}
      <Fieldset variant="unstyled" disabled={readOnly} p={0} m={0} data-testid="bot-settings-fields">
        <Stack gap="lg">
          <Card withBorder padding="lg">
            <Title order={4}>Abuse Protection</Title>
            <Text size="sm" c="dimmed" mb="md">
              Messages longer than this limit are rejected before they reach your assistant.
            </Text>
            <NumberInput
              label="Maximum Chat Text Size"
              description={`Characters per visitor message (${MIN_CHAT_TEXT_SIZE}–${MAX_CHAT_TEXT_SIZE})`}
              value={s.size}
              onChange={act.setSize}
              allowDecimal={false}
              allowNegative={false}
              clampBehavior="none"
              error={sizeError}
              maw={320}
            />
          </Card>

          <Card withBorder padding="lg">
            <Title order={4}>URL Whitelist</Title>
            <Text size="sm" c="dimmed" mb="md">
              When the list is empty the widget works on any website. Otherwise only these websites may embed
              it (for example https://shop.example.com or *.example.com).
            </Text>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                act.addEntry();
              }}
            >
              <Group align="flex-end" wrap="nowrap" gap="xs">
                <TextInput
                  label="Website URL"
                  placeholder="https://example.com"
                  value={s.entry}
                  onChange={(e) => act.setEntry(e.currentTarget.value)}
                  style={{ flex: 1, minWidth: 0 }}
                />
                <Button type="submit" leftSection={<IconPlus size={16} />} disabled={!s.entry.trim()}>
                  Add
                </Button>
              </Group>
            </form>
            <Stack gap={6} mt="md" data-testid="whitelist">
              {s.whitelist.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No websites added: the widget is allowed everywhere.
                </Text>
              ) : (
                s.whitelist.map((entry) => (
                  <Group key={entry} justify="space-between" wrap="nowrap" gap="xs">
                    <Text size="sm" style={{ wordBreak: 'break-all' }} data-testid="whitelist-entry">
                      {entry}
                    </Text>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Remove ${entry}`}
                      onClick={() => act.removeEntry(entry)}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Group>
                ))
              )}
            </Stack>
          </Card>
        </Stack>
      </Fieldset>

      {!readOnly && (
        <Group justify="flex-end">
          <Button onClick={() => void act.save()} loading={s.saving}>
            Save Settings
          </Button>
        </Group>
      )}
    </Stack>
  );
}
