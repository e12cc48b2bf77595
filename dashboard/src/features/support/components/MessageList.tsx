// A conversation: the agent on the right, the customer on the left, the bot on the left in its own
// colour, system notices centred. In the inbox bot messages can be edited inline (Save/Cancel,
// never empty).
import { useEffect, useRef, useState } from 'react';
import { ActionIcon, Box, Button, Group, Paper, ScrollArea, Stack, Text, Textarea } from '@mantine/core';
import { IconPencil } from '@tabler/icons-react';
import type { ChatMessage } from '../api/support';
import { editError } from '../stores/rules';
import { timeOf } from './format';

function senderOf(m: ChatMessage, botName: string): string {
  switch (m.role) {
    case 'agent':
      return m.senderName || m.agentName || 'Agent';
    case 'bot':
      return botName;
    case 'system':
      return 'System';
    default:
      return m.senderName || 'Customer';
  }
}

function EditBox({ message, onSave, onDone }: { message: ChatMessage; onSave: (text: string) => Promise<string | null>; onDone: () => void }) {
  const [text, setText] = useState(message.content);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const invalid = editError(text);
  return (
    <Stack gap={6}>
      <Textarea
        aria-label="Edit message"
        value={text}
        autosize
        minRows={2}
        onChange={(e) => {
          setText(e.currentTarget.value);
          setError(null);
        }}
        error={error ?? (text.length > 0 ? null : invalid)}
      />
      <Group gap="xs" justify="flex-end">
        <Button size="xs" variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button
          size="xs"
          loading={busy}
          disabled={!!invalid}
          onClick={async () => {
            setBusy(true);
            const problem = await onSave(text);
            setBusy(false);
            if (problem) setError(problem);
            else onDone();
          }}
        >
          Save
        </Button>
      </Group>
    </Stack>
  );
}

export function MessageList({
  messages,
  botName,
  typing,
  typingText = 'Customer is typing...',
  onEdit,
  height,
}: {
  messages: readonly ChatMessage[];
  botName: string;
  typing?: boolean;
  typingText?: string;
  onEdit?: (messageId: string, text: string) => Promise<string | null>;
  height: string | number;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  const viewport = useRef<HTMLDivElement>(null);
  const last = messages[messages.length - 1];
  useEffect(() => {
    if (viewport.current) viewport.current.scrollTop = viewport.current.scrollHeight;
  }, [messages.length, last?.content, typing]);

  return (
    <ScrollArea h={height} viewportRef={viewport} type="auto" offsetScrollbars scrollbars="y" styles={{ content: { display: 'block', minWidth: 0 } }}>
      <Stack gap="sm" p="xs" role="log" aria-label="Messages">
        {messages.map((m) => {
          const who = senderOf(m, botName);
          if (m.role === 'system') {
            return (
              <Text key={m._id} role="article" aria-label="System" size="xs" c="dimmed" ta="center" fs="italic">
                {m.content}
              </Text>
            );
          }
          const mine = m.role === 'agent';
          const bot = m.role === 'bot';
          return (
            <Group key={m._id} justify={mine ? 'flex-end' : 'flex-start'} wrap="nowrap" align="flex-start">
              <Paper
                role="article"
                aria-label={who}
                p="xs"
                radius="md"
                maw="85%"
                bg={mine ? 'blue.6' : bot ? 'teal.0' : 'gray.1'}
                c={mine ? 'white' : m.isError ? 'red.7' : undefined}
                style={{ minWidth: 0 }}
              >
                <Group justify="space-between" gap="xs" wrap="nowrap">
                  <Text size="xs" fw={600} c={mine ? 'white' : 'dimmed'} truncate>
                    {who}
                  </Text>
                  <Group gap={4} wrap="nowrap">
                    <Text size="xs" c={mine ? 'blue.1' : 'dimmed'}>
                      {timeOf(m.timestamp)}
                    </Text>
                    {bot && onEdit && editing !== m._id && !m.streaming && (
                      <ActionIcon size="xs" variant="subtle" aria-label="Edit message" onClick={() => setEditing(m._id)}>
                        <IconPencil size={12} />
                      </ActionIcon>
                    )}
                  </Group>
                </Group>
                {editing === m._id && onEdit ? (
                  <EditBox message={m} onSave={(t) => onEdit(m._id, t)} onDone={() => setEditing(null)} />
                ) : (
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                    {m.content}
                  </Text>
                )}
              </Paper>
            </Group>
          );
        })}
        {typing && (
          <Box role="status" aria-label={typingText}>
            <Text size="xs" c="dimmed" fs="italic">
              {typingText}
            </Text>
          </Box>
        )}
      </Stack>
    </ScrollArea>
  );
}
