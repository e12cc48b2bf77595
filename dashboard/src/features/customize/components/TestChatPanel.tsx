// The live test chat: styled by the editor's current (unsaved) settings, talking to the real bot.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { ActionIcon, Avatar, Box, Group, Paper, ScrollArea, Stack, Text, Textarea, UnstyledButton } from '@mantine/core';
import { IconRefresh, IconSend } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { customize } from '../stores/customize';
import { chatLook } from '../stores/look';
import { cleanQuestions } from '../stores/model';
import { createTestChat, STATUS_PHRASES } from '../stores/testChat';
import { LeadModal } from './LeadModal';

const KEYFRAMES = `
@keyframes parley-fade { from { opacity: 0 } to { opacity: 1 } }
@keyframes parley-slide-up { from { opacity: 0; transform: translateY(10px) } to { opacity: 1; transform: none } }
@keyframes parley-slide-right { from { opacity: 0; transform: translateX(-12px) } to { opacity: 1; transform: none } }
@keyframes parley-scale { from { opacity: 0; transform: scale(0.92) } to { opacity: 1; transform: none } }
`;

function Bubble({
  mine,
  error,
  children,
  look,
  animation,
  radius,
  avatar,
  name,
}: {
  mine: boolean;
  error?: boolean;
  children: React.ReactNode;
  look: ReturnType<typeof chatLook>;
  animation: string;
  radius: number;
  avatar?: string;
  name: string;
}) {
  return (
    <Group justify={mine ? 'flex-end' : 'flex-start'} align="flex-end" gap={6} wrap="nowrap" style={{ animation: `parley-${animation} 0.25s ease-out` }}>
      {!mine && (
        <Avatar src={avatar || null} size={26} radius="xl" color="gray" alt={name}>
          {name.charAt(0).toUpperCase()}
        </Avatar>
      )}
      <Box
        data-role={mine ? 'user' : 'bot'}
        data-error={error ? 'true' : undefined}
        role={error ? 'alert' : undefined}
        style={{
          maxWidth: '80%',
          padding: '8px 12px',
          borderRadius: Math.max(radius, 4),
          background: error ? '#fee2e2' : mine ? look.primary : look.botBubble,
          color: error ? '#991b1b' : mine ? look.userText : look.botText,
          border: error ? '1px solid #fca5a5' : undefined,
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
        }}
      >
        {children}
      </Box>
    </Group>
  );
}

export function TestChatPanel({ botId }: { botId: string }) {
  const s = useSnapshot(customize).settings;
  const [chat] = useState(createTestChat);
  const c = useSnapshot(chat.state);
  const [text, setText] = useState('');
  const [phrase, setPhrase] = useState(0);
  const viewport = useRef<HTMLDivElement>(null);
  const look = chatLook(s as typeof customize.settings);

  useEffect(() => {
    chat.actions.reset(botId);
    return () => chat.actions.dispose();
  }, [botId, chat]);

  useEffect(() => {
    if (!c.pending) return;
    setPhrase(0);
    const t = setInterval(() => setPhrase((p) => (p + 1) % STATUS_PHRASES.length), 2000);
    return () => clearInterval(t);
  }, [c.pending]);

  useEffect(() => {
    const v = viewport.current;
    if (v) v.scrollTop = v.scrollHeight;
  }, [c.messages.length, c.pending]);

  async function send(message: string) {
    const sent = await chat.actions.send(message, { enableLeadCapture: s.enableLeadCapture });
    return sent;
  }

  function submit() {
    if (!text.trim() || c.pending) return;
    const message = text;
    setText('');
    void send(message);
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      submit();
    }
  }

  const name = s.botName.trim() || 'Assistant';
  const chips = s.enableQuickReplies ? cleanQuestions(s.customQuestions) : [];
  const justify = s.chatPosition.endsWith('left') ? 'flex-start' : 'flex-end';
  const scopedCss = s.customCSS.trim() ? `[data-testid="test-chat"] { ${s.customCSS} }` : '';

  return (
    <Stack gap="xs">
      <style>{KEYFRAMES + scopedCss}</style>
      <Group justify="space-between">
        <Text fw={600}>Test Chat</Text>
        <Group gap={4}>
          <Text size="xs" c="dimmed">
            {s.chatPosition} · {s.chatSize}
          </Text>
          <ActionIcon variant="subtle" aria-label="Restart conversation" onClick={() => chat.actions.reset(botId)}>
            <IconRefresh size={16} />
          </ActionIcon>
        </Group>
      </Group>
      <Box style={{ display: 'flex', justifyContent: justify }}>
        <Paper
          data-testid="test-chat"
          data-palette={s.isCustomColorMode ? 'custom' : String(s.selectedPalette)}
          style={{
            width: look.size.width,
            maxWidth: '100%',
            height: look.size.height,
            display: 'flex',
            flexDirection: 'column',
            overflow: 'hidden',
            borderRadius: s.borderRadius,
            boxShadow: look.shadow,
            background: look.background,
            color: look.text,
            fontSize: s.selectedFontSize,
            border: '1px solid rgba(0,0,0,0.08)',
          }}
        >
          <Group data-testid="test-chat-header" gap="sm" p="sm" wrap="nowrap" style={{ background: look.primary, color: look.userText }}>
            <Avatar src={s.botAvatar || null} radius="xl" color="white" alt={name}>
              {name.charAt(0).toUpperCase()}
            </Avatar>
            <Box style={{ minWidth: 0, flex: 1 }}>
              <Text fw={600} truncate style={{ fontSize: 'inherit' }} data-testid="test-chat-name">
                {name}
              </Text>
              <Text size="xs" opacity={0.9} data-testid="test-chat-status">
                {c.pending && s.enableTypingIndicator ? 'Typing...' : 'Online'}
              </Text>
            </Box>
            {s.headerTitle && (
              <Text size="xs" opacity={0.85} ta="right" visibleFrom="xs" style={{ maxWidth: '40%' }} truncate>
                {s.headerTitle}
              </Text>
            )}
          </Group>

          <ScrollArea style={{ flex: 1 }} viewportRef={viewport} p="sm">
            <Stack gap="xs" data-testid="test-chat-messages" style={{ fontSize: s.selectedFontSize }}>
              <Bubble mine={false} look={look} animation={s.animationStyle} radius={s.borderRadius} avatar={s.botAvatar} name={name}>
                {s.welcomeMessage}
              </Bubble>
              {c.messages.map((m) => (
                <Bubble
                  key={m.id}
                  mine={m.role === 'user'}
                  error={m.isError}
                  look={look}
                  animation={s.animationStyle}
                  radius={s.borderRadius}
                  avatar={s.botAvatar}
                  name={name}
                >
                  {m.content}
                </Bubble>
              ))}
              {c.pending && s.enableTypingIndicator && (
                <Text size="xs" c="dimmed" role="status" data-testid="test-chat-thinking">
                  {STATUS_PHRASES[phrase]}
                </Text>
              )}
            </Stack>
          </ScrollArea>

          {chips.length > 0 && (
            <Group gap={6} px="sm" pb={6} data-testid="quick-questions">
              {chips.map((q) => (
                <UnstyledButton
                  key={q}
                  disabled={c.pending}
                  onClick={() => void send(q)}
                  style={{
                    border: `1px solid ${look.primary}`,
                    color: look.text,
                    borderRadius: 999,
                    padding: '2px 10px',
                    fontSize: 12,
                    opacity: c.pending ? 0.6 : 1,
                  }}
                >
                  {q}
                </UnstyledButton>
              ))}
            </Group>
          )}

          <Box p="sm" pt={4} style={{ borderTop: '1px solid rgba(0,0,0,0.08)', background: look.background }}>
            <Group gap={6} align="flex-end" wrap="nowrap">
              <Textarea
                style={{ flex: 1 }}
                aria-label="Message"
                placeholder={s.placeholder}
                autosize
                minRows={1}
                maxRows={4}
                maxLength={s.maxMessageLength || 500}
                value={text}
                disabled={c.pending}
                onChange={(e) => setText(e.currentTarget.value)}
                onKeyDown={onKey}
              />
              <ActionIcon
                size="lg"
                aria-label="Send message"
                onClick={submit}
                disabled={!text.trim() || c.pending}
                style={{ background: !text.trim() || c.pending ? undefined : look.primary }}
              >
                <IconSend size={16} />
              </ActionIcon>
            </Group>
            <Group justify="space-between" mt={4} gap={4}>
              <Text size="xs" opacity={0.7} style={{ color: look.text }}>
                Press Enter to send, Shift + Enter for new line
              </Text>
              <Text size="xs" opacity={0.7} style={{ color: look.text }} data-testid="test-chat-counter">
                {text.length}/{s.maxMessageLength || 500}
              </Text>
            </Group>
            {s.showBranding && (
              <Text size="10px" ta="center" opacity={0.6} mt={4} style={{ color: look.text }}>
                Powered by Parley
              </Text>
            )}
          </Box>
        </Paper>
      </Box>
      <LeadModal
        key={c.leadModalOpen ? 'open' : 'closed'}
        opened={c.leadModalOpen}
        message={s.leadCaptureMessage}
        onSkip={chat.actions.skipLead}
        onContinue={chat.actions.submitLead}
      />
    </Stack>
  );
}
