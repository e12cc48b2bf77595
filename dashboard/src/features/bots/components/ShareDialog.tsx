import { Code, Group, List, Modal, Stack, Tabs, Text, TextInput } from '@mantine/core';
import { chatUrl, scriptTag } from '@/lib/embed';
import type { Bot } from '../api/bots';
import { CopyAction } from './EmbedSnippets';

/**
 * The name as an HTML comment's text: a `--` or `>` in it could end the comment early on the
 * owner's site and turn the rest of the name into markup (an editor may rename the bot).
 */
export function commentText(name: string): string {
  return name.replace(/-{2,}/g, '-').replace(/[<>]/g, '');
}

/** Share a bot: its public chat link, or the embed code for a website. */
export function ShareDialog({ bot, onClose }: { bot: Bot | null; onClose: () => void }) {
  const name = bot?.name || 'Untitled Assistant';
  const url = bot ? chatUrl(bot._id) : '';
  const embed = bot ? `<!-- ${commentText(name)} -->\n${scriptTag(bot._id)}` : '';
  return (
    <Modal opened={bot !== null} onClose={onClose} title={`Share ${name}`} size="lg">
      <Tabs defaultValue="url">
        <Tabs.List>
          <Tabs.Tab value="url">Share URL</Tabs.Tab>
          <Tabs.Tab value="embed">Embed Code</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="url" pt="md">
          <Stack gap="sm">
            <Group gap="xs" wrap="nowrap" align="flex-end">
              <TextInput label="Public chat link" value={url} readOnly style={{ flex: 1 }} />
              <CopyAction value={url} />
            </Group>
            <List size="sm" spacing={4}>
              <List.Item>Anyone with this link can chat with your assistant.</List.Item>
              <List.Item>The assistant uses its configured settings.</List.Item>
              <List.Item>Conversations are logged in your dashboard.</List.Item>
            </List>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="embed" pt="md">
          <Stack gap="sm">
            <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {embed}
            </Code>
            <div>
              <CopyAction value={embed} />
            </div>
            <Text size="sm" c="dimmed">
              Paste this code just before the closing &lt;/body&gt; tag of every page where the chat should appear.
              The launcher shows in the corner and opens your assistant.
            </Text>
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Modal>
  );
}
