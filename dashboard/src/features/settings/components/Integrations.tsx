// Integrations: the embed snippets (React, HTML, WordPress) holding the bot's real id, with how to
// install them.
import { Card, Code, Group, List, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { EmbedSnippets, CopyAction } from '@/features/bots/components/EmbedSnippets';
import { chatUrl } from '@/lib/embed';

export const QUICK_STEPS = [
  'Copy the snippet for your platform (React, HTML or WordPress).',
  'Paste it into your website: before </body> in HTML, in your theme footer for WordPress, or render <ChatWidget /> once in your React app.',
  'In Bot Settings, add your website to the URL Whitelist so only your sites can show the assistant.',
  'Open your website: the chat button appears in the corner. Send a test message to check the answers.',
];

export function Integrations({ botId }: { botId: string }) {
  const link = chatUrl(botId);
  return (
    <Stack gap="lg" maw={900}>
      <Card withBorder padding="lg">
        <Title order={4}>Embed code</Title>
        <Text size="sm" c="dimmed" mb="md">
          The snippet loads <Code>widget.js</Code> from this Parley server with your assistant's id in{' '}
          <Code>data-bot-id</Code>. Set <Code>data-theme</Code> to <Code>light</Code> or <Code>dark</Code> to match
          your site. Everything else (colours, welcome message, position) comes from the Customize screen, so you
          never need to change the code after a redesign.
        </Text>
        <EmbedSnippets botId={botId} />
      </Card>

      <Card withBorder padding="lg">
        <Title order={4} mb="sm">
          Quick setup
        </Title>
        <List spacing="sm" type="ordered" data-testid="quick-steps">
          {QUICK_STEPS.map((step, i) => (
            <List.Item
              key={step}
              icon={
                <ThemeIcon size={24} radius="xl">
                  <Text size="xs" fw={700}>
                    {i + 1}
                  </Text>
                </ThemeIcon>
              }
            >
              <Text size="sm">{step}</Text>
            </List.Item>
          ))}
        </List>
      </Card>

      <Card withBorder padding="lg">
        <Title order={4}>Public chat link</Title>
        <Text size="sm" c="dimmed" mb="sm">
          No website? Share this link: it opens a full-page chat with your assistant.
        </Text>
        <Group gap="sm" wrap="nowrap" align="center">
          <Code style={{ wordBreak: 'break-all', flex: 1, minWidth: 0 }} data-testid="chat-link">
            {link}
          </Code>
          <CopyAction value={link} label="Copy link" />
        </Group>
      </Card>
    </Stack>
  );
}
