// The agent's reply box: Enter sends, Shift+Enter adds a line, empty text is not sent, a counter
// out of 500 (shown, not enforced), and the typing indicator to the customer while text exists.
import { useEffect, useRef, useState } from 'react';
import { ActionIcon, Group, Stack, Text, Textarea } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import { canSend, composerKey, counterText } from '../stores/rules';

export const TYPING_IDLE_MS = 3000;

export function Composer({
  onSend,
  onTyping,
  disabled,
  placeholder = 'Type your message...',
  showHint = false,
}: {
  onSend: (text: string) => Promise<boolean>;
  onTyping?: (on: boolean) => void;
  disabled?: boolean;
  placeholder?: string;
  showHint?: boolean;
}) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  // Typing stops being shown after a pause, not only on blur or send.
  const idle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const typing = (on: boolean) => {
    if (idle.current) clearTimeout(idle.current);
    onTyping?.(on);
    if (on) idle.current = setTimeout(() => onTyping?.(false), TYPING_IDLE_MS);
  };
  useEffect(
    () => () => {
      if (idle.current) clearTimeout(idle.current);
    },
    [],
  );

  const send = async () => {
    if (!canSend(text) || sending || disabled) return;
    setSending(true);
    typing(false);
    const ok = await onSend(text);
    setSending(false);
    if (ok) setText('');
  };

  return (
    <Stack gap={4}>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <Textarea
          aria-label="Message"
          placeholder={placeholder}
          value={text}
          disabled={disabled}
          autosize
          minRows={1}
          maxRows={4}
          style={{ flex: 1 }}
          styles={{ input: { minHeight: 48, maxHeight: 120 } }}
          onChange={(e) => {
            const v = e.currentTarget.value;
            setText(v);
            typing(v.trim().length > 0);
          }}
          onBlur={() => typing(false)}
          onKeyDown={(e) => {
            const action = composerKey({ key: e.key, shiftKey: e.shiftKey, isComposing: e.nativeEvent.isComposing });
            if (action === 'send') {
              e.preventDefault();
              void send();
            }
          }}
        />
        <ActionIcon size={48} aria-label="Send" onClick={() => void send()} disabled={!canSend(text) || disabled} loading={sending}>
          <IconSend size={20} />
        </ActionIcon>
      </Group>
      {showHint && (
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text size="xs" c="dimmed">
            Press Enter to send, Shift + Enter for new line
          </Text>
          <Text size="xs" c="dimmed" data-testid="composer-counter">
            {counterText(text)}
          </Text>
        </Group>
      )}
    </Stack>
  );
}
