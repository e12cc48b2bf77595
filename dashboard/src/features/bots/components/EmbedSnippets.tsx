import { Button, Code, CopyButton, Stack, Tabs } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { embedSnippet, type SnippetKind } from '@/lib/embed';

const TABS: { value: SnippetKind; label: string }[] = [
  { value: 'react', label: 'React' },
  { value: 'html', label: 'HTML' },
  { value: 'wordpress', label: 'WordPress' },
];

export function CopyAction({ value, label = 'Copy' }: { value: string; label?: string }) {
  return (
    <CopyButton value={value} timeout={2000}>
      {({ copied, copy }) => (
        <Button
          size="xs"
          variant={copied ? 'filled' : 'light'}
          color={copied ? 'teal' : undefined}
          leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
          onClick={copy}
        >
          {copied ? 'Copied!' : label}
        </Button>
      )}
    </CopyButton>
  );
}

/** The React / HTML / WordPress embed snippets for one bot, each with a copy button. */
export function EmbedSnippets({ botId }: { botId: string }) {
  return (
    <Tabs defaultValue="react">
      <Tabs.List>
        {TABS.map((t) => (
          <Tabs.Tab key={t.value} value={t.value}>
            {t.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {TABS.map((t) => {
        const code = embedSnippet(t.value, botId);
        return (
          <Tabs.Panel key={t.value} value={t.value} pt="sm">
            <Stack gap="xs">
              <Code block data-testid={`snippet-${t.value}`} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {code}
              </Code>
              <div>
                <CopyAction value={code} />
              </div>
            </Stack>
          </Tabs.Panel>
        );
      })}
    </Tabs>
  );
}
