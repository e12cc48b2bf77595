// The live test chat: styled by the editor's current (unsaved) settings, talking to the real bot.
// Its look, texts and rules come from the widget's shared modules (`@parley/shared`), the ones
// the live chat draws with, and its parts carry the same class names, so custom CSS and every
// setting show here as visitors will see them.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { ActionIcon, Anchor, Avatar, Box, Group, Paper, ScrollArea, Stack, Text, Textarea, UnstyledButton } from '@mantine/core';
import { IconRefresh, IconSend } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { scopedCustomCss } from '@parley/shared/customCss';
import { HOOKS, KEYFRAMES, footer, suggestedQuestions } from '@parley/shared/look';
import { faqQuestions } from '../api/faq';
import { customize } from '../stores/customize';
import { chatLook } from '../stores/look';
import { createTestChat, STATUS_PHRASES } from '../stores/testChat';
import { LeadModal } from './LeadModal';

function Bubble({
  mine,
  error,
  children,
  look,
}: {
  mine: boolean;
  error?: boolean;
  children: React.ReactNode;
  look: ReturnType<typeof chatLook>;
}) {
  return (
    <Group justify={mine ? 'flex-end' : 'flex-start'} wrap="nowrap">
      <Box
        data-role={mine ? 'user' : 'bot'}
        data-error={error ? 'true' : undefined}
        role={error ? 'alert' : undefined}
        className={`${HOOKS.bubble} ${mine ? HOOKS.user : HOOKS.bot}`}
        style={{
          maxWidth: '80%',
          padding: '8px 12px',
          borderRadius: look.bubbleRadius,
          animation: look.animation,
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

/** A quick-reply chip: the suggested questions under the chat and a reply's "did you mean". */
function Chip({ label, disabled, onAsk, look }: { label: string; disabled: boolean; onAsk: (q: string) => void; look: ReturnType<typeof chatLook> }) {
  return (
    <UnstyledButton
      disabled={disabled}
      onClick={() => onAsk(label)}
      style={{
        border: `1px solid ${look.primary}`,
        color: look.text,
        borderRadius: 999,
        padding: '2px 10px',
        fontSize: 12,
        opacity: disabled ? 0.6 : 1,
      }}
    >
      {label}
    </UnstyledButton>
  );
}

/**
 * `canTest`: testing the bot is an editor's permission (spec 1 §6); a viewer or agent sees the
 * preview but cannot start conversations, which count against the owner's plan.
 */
export function TestChatPanel({ botId, icon = null, canTest = true }: { botId: string; icon?: string | null; canTest?: boolean }) {
  const s = useSnapshot(customize).settings;
  const [chat] = useState(createTestChat);
  const c = useSnapshot(chat.state);
  const [text, setText] = useState('');
  const [phrase, setPhrase] = useState(0);
  const viewport = useRef<HTMLDivElement>(null);
  const look = chatLook(s as typeof customize.settings);
  const [faq, setFaq] = useState<string[]>([]);
  const customCss = useMemo(() => scopedCustomCss(s.customCSS), [s.customCSS]);

  useEffect(() => {
    let live = true;
    setFaq([]);
    faqQuestions(botId)
      .then((list) => live && setFaq(list))
      .catch(() => {
        // Without the list the preview shows no FAQ questions; nothing else depends on it.
      });
    return () => {
      live = false;
    };
  }, [botId]);

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

  const locked = c.pending || !canTest;

  async function send(message: string) {
    if (!canTest) return false;
    const sent = await chat.actions.send(message, { enableLeadCapture: s.enableLeadCapture, typingDelay: s.typingDelay });
    return sent;
  }

  function submit() {
    if (!text.trim() || locked) return;
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

  // Spec 2 /preview: the panel shows the bot's name and whether it is answering, not the widget's
  // header title and subtitle.
  const name = s.botName.trim() || 'Assistant';
  const started = c.messages.some((m) => m.role === 'user');
  const chips = started ? [] : suggestedQuestions({ ...s, faqQuestions: faq });
  const foot = footer(s);
  const justify = s.chatPosition.endsWith('left') ? 'flex-start' : 'flex-end';

  return (
    <Stack gap="xs">
      <style>{KEYFRAMES}</style>
      {customCss && <style data-parley-custom-css="">{customCss}</style>}
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
      <Box data-parley-chat="" style={{ display: 'flex', justifyContent: justify }}>
        <Paper
          data-testid="test-chat"
          className={HOOKS.chat}
          data-palette={s.isCustomColorMode ? 'custom' : String(s.selectedPalette)}
          style={{
            width: look.size.width,
            maxWidth: '100%',
            height: look.size.height,
            display: 'flex',
            flexDirection: 'column',
            overflow: 'hidden',
            borderRadius: look.radius,
            boxShadow: look.shadow,
            background: look.background,
            color: look.text,
            fontSize: look.fontSize,
            border: '1px solid rgba(0,0,0,0.08)',
          }}
        >
          <Group
            data-testid="test-chat-header"
            className={HOOKS.header}
            gap="sm"
            p="sm"
            wrap="nowrap"
            style={{ background: look.primary, color: look.userText }}
          >
            <Avatar src={s.botAvatar.trim() || icon || null} radius="xl" color="white" alt={name}>
              {name.charAt(0).toUpperCase()}
            </Avatar>
            <Box style={{ minWidth: 0, flex: 1 }}>
              <Text fw={600} truncate style={{ fontSize: 'inherit' }} data-testid="test-chat-name">
                {name}
              </Text>
              <Text size="xs" opacity={0.9} data-testid="test-chat-status">
                {c.pending ? 'Typing...' : 'Online'}
              </Text>
            </Box>
          </Group>

          <ScrollArea style={{ flex: 1 }} viewportRef={viewport} p="sm">
            <Stack gap="xs" data-testid="test-chat-messages" className={HOOKS.messages} style={{ fontSize: look.fontSize }}>
              <Bubble mine={false} look={look}>
                {s.welcomeMessage}
              </Bubble>
              {c.messages.map((m, i) => (
                <Bubble
                  key={m.id}
                  mine={m.role === 'user'}
                  error={m.isError}
                  look={look}
                >
                  {m.content}
                  {m.suggestions && m.suggestions.length > 0 && (
                    // Only the latest reply's chips ask; once the conversation moved on they are a record.
                    <Group gap={6} mt={6} role="group" aria-label="Did you mean" className={`did-you-mean ${HOOKS.suggestions}`}>
                      {m.suggestions.map((q) => (
                        <Chip key={q} label={q} disabled={locked || i !== c.messages.length - 1} onAsk={(q) => void send(q)} look={look} />
                      ))}
                    </Group>
                  )}
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
            <Group gap={6} px="sm" pb={6} data-testid="quick-questions" className={HOOKS.suggestions} aria-label="Suggested questions">
              {chips.map((q) => (
                <Chip key={q} label={q} disabled={locked} onAsk={(q) => void send(q)} look={look} />
              ))}
            </Group>
          )}

          <Box p="sm" pt={4} className={HOOKS.composer} style={{ borderTop: '1px solid rgba(0,0,0,0.08)', background: look.background }}>
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
                disabled={locked}
                onChange={(e) => setText(e.currentTarget.value)}
                onKeyDown={onKey}
              />
              <ActionIcon
                size="lg"
                aria-label="Send message"
                onClick={submit}
                disabled={!text.trim() || locked}
                style={{ background: !text.trim() || locked ? undefined : look.primary }}
              >
                <IconSend size={16} />
              </ActionIcon>
            </Group>
            <Group justify="space-between" mt={4} gap={4}>
              <Text size="xs" opacity={0.7} style={{ color: look.text }}>
                {canTest ? 'Press Enter to send, Shift + Enter for new line' : 'Testing is for owners, admins and editors'}
              </Text>
              <Text size="xs" opacity={0.7} style={{ color: look.text }} data-testid="test-chat-counter">
                {text.length}/{s.maxMessageLength || 500}
              </Text>
            </Group>
            {(foot.company || foot.email || foot.branding) && (
              <Group className={HOOKS.footer} justify="center" gap={10} mt={4} data-testid="test-chat-footer" style={{ fontSize: 10, color: look.text, opacity: 0.7 }}>
                {foot.company && <span>{foot.company}</span>}
                {foot.email && (
                  <Anchor href={`mailto:${foot.email}`} inherit c="inherit">
                    Email us
                  </Anchor>
                )}
                {foot.branding && <span>Powered by Parley</span>}
              </Group>
            )}
          </Box>
        </Paper>
      </Box>
      <LeadModal
        key={c.leadModalOpen ? 'open' : 'closed'}
        opened={c.leadModalOpen}
        message={s.leadCaptureMessage}
        onSkip={chat.actions.skipLead}
        onContinue={(lead) => void chat.actions.submitLead(lead)}
      />
    </Stack>
  );
}
