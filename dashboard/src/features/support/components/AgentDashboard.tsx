// The Agent Dashboard (/agent-dashboard, spec 2 §2): counters, real figures, the three session
// lists and the live chat with the customer.
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import {
  ActionIcon,
  Badge,
  Button,
  Center,
  Grid,
  Group,
  Indicator,
  Paper,
  ScrollArea,
  SimpleGrid,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { live } from '@/features/live/socket';
import type { ChatSession, SupportStats } from '../api/support';
import { joinable } from '../stores/events';
import { joinSession, resolveSession, selectSession, sendMessage, setTyping, support, takeSession } from '../stores/support';
import { Composer } from './Composer';
import { timeOf, titleOf } from './format';
import { MessageList } from './MessageList';
import { DASHBOARD_RESOLVE, ResolveModal } from './ResolveModal';

/** '—' until there is something to show: never an invented figure. */
export function figures(stats: SupportStats | null) {
  const avg = stats?.averageResponseSeconds;
  const sat = stats?.satisfaction;
  return {
    active: stats ? String(stats.activeChats) : '—',
    resolvedToday: stats ? String(stats.resolvedToday) : '—',
    avgResponse: avg == null ? '—' : avg < 60 ? `${Math.round(avg)}s` : avg < 3600 ? `${Math.round(avg / 60)}m` : `${(avg / 3600).toFixed(1)}h`,
    avgHint: avg == null ? 'No handoffs answered yet' : `Over ${stats?.answeredHandoffs ?? 0} answered handoff${stats?.answeredHandoffs === 1 ? '' : 's'}`,
    satisfaction: sat == null ? '—' : `${sat.toFixed(1)}/5`,
    satHint: sat == null ? 'No ratings yet' : `From ${stats?.ratedSessions ?? 0} rating${stats?.ratedSessions === 1 ? '' : 's'}`,
  };
}

/** Whether this tab hears the bot's live events (join-as-agent acknowledged). */
export function OnlineBadge() {
  const { online } = useSnapshot(support);
  return (
    <Badge color={online ? 'green' : 'gray'} variant="dot" data-testid="agent-online">
      {online ? 'Online' : 'Connecting...'}
    </Badge>
  );
}

export function HeaderCounters() {
  const s = useSnapshot(support);
  const f = figures(s.stats as SupportStats | null);
  const items = [
    { label: 'Active', value: f.active },
    { label: 'Resolved Today', value: f.resolvedToday },
    { label: 'In Queue', value: String(s.queue.length) },
  ];
  return (
    <Group gap="lg" wrap="wrap" aria-label="Counters">
      <OnlineBadge />
      {items.map((i) => (
        <Stack key={i.label} gap={0} align="center" data-testid={`counter-${i.label}`}>
          <Text fw={700} size="lg">
            {i.value}
          </Text>
          <Text size="xs" c="dimmed">
            {i.label}
          </Text>
        </Stack>
      ))}
    </Group>
  );
}

function Tile({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Paper withBorder p="sm" radius="md" data-testid={`tile-${label}`}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl">
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack gap="xs" component="section" aria-label={title.replace(/ \(\d+\)$/, '')}>
      <Title order={5}>{title}</Title>
      {children}
    </Stack>
  );
}

function SessionLine({ s, children }: { s: ChatSession; children?: React.ReactNode }) {
  return (
    <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
      <Stack gap={0} style={{ minWidth: 0 }}>
        <Text size="sm" fw={600} truncate>
          {titleOf(s)}
        </Text>
        <Text size="xs" c="dimmed" truncate>
          {[s.customerName, s.customerEmail].filter(Boolean).join(' · ') || 'Customer'}
        </Text>
        {s.lastMessage && (
          <Text size="xs" c="dimmed" lineClamp={1}>
            {s.lastMessage}
          </Text>
        )}
      </Stack>
      {children && <div style={{ flexShrink: 0 }}>{children}</div>}
    </Group>
  );
}

/** False when the caller's role may watch but not take, answer or resolve (the server refuses). */
const CanHandle = createContext(true);

function SessionsPanel() {
  const s = useSnapshot(support);
  const canHandle = useContext(CanHandle);
  const f = figures(s.stats as SupportStats | null);
  const all = joinable(s);
  return (
    <Stack gap="md">
      <SimpleGrid cols={2} spacing="xs">
        <Tile label="Active Chats" value={f.active} />
        <Tile label="Resolved Today" value={f.resolvedToday} />
        <Tile label="Avg Response" value={f.avgResponse} hint={f.avgHint} />
        <Tile label="Satisfaction" value={f.satisfaction} hint={f.satHint} />
      </SimpleGrid>

      <Section title={`All Active Sessions (${all.length})`}>
        <ScrollArea.Autosize mah={300} type="auto" scrollbars="y" styles={{ content: { display: 'block', minWidth: 0 } }}>
          <Stack gap="xs">
            {all.map((a) => (
              <Paper key={a._id} withBorder p="xs" radius="sm" data-testid="open-session">
                <SessionLine s={a}>
                  {canHandle && (
                    <Button size="xs" variant="light" onClick={() => void joinSession(a._id)}>
                      Join Chat
                    </Button>
                  )}
                </SessionLine>
              </Paper>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Section>

      <Section title={`Urgent Support Requests (${s.queue.length})`}>
        <ScrollArea.Autosize mah={300} type="auto" scrollbars="y" styles={{ content: { display: 'block', minWidth: 0 } }}>
          <Stack gap="xs">
            {s.queue.map((r) => (
              <Paper key={r.sessionId} withBorder p="xs" radius="sm" bg="red.0" data-testid="urgent-request">
                <Stack gap={4}>
                  <Badge color="red" size="sm">
                    Urgent: Customer Requested Help
                  </Badge>
                  <SessionLine
                    s={{ ...r.session, customerName: r.customerInfo.name ?? r.session.customerName, customerEmail: r.customerInfo.email ?? r.session.customerEmail, lastMessage: r.customerMessage || r.session.lastMessage }}
                  >
                    {canHandle && (
                      <Button size="xs" color="red" onClick={() => void takeSession(r.sessionId)}>
                        Take Session
                      </Button>
                    )}
                  </SessionLine>
                  <Text size="xs" c="dimmed">
                    {timeOf(r.timestamp)}
                  </Text>
                </Stack>
              </Paper>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Section>

      <Section title={`My Active Sessions (${s.mine.length})`}>
        {!s.mine.length ? (
          <Stack gap={2} align="center" py="sm">
            <Text size="sm" fw={600}>
              No active support sessions
            </Text>
            <Text size="xs" c="dimmed" ta="center">
              Sessions will appear here when customers request human support
            </Text>
          </Stack>
        ) : (
          <ScrollArea.Autosize mah={300} type="auto" scrollbars="y" styles={{ content: { display: 'block', minWidth: 0 } }}>
            <Stack gap="xs">
              {s.mine.map((m) => (
                <UnstyledButton
                  key={m._id}
                  onClick={() => void selectSession(m._id)}
                  aria-label={`Open ${titleOf(m)}`}
                  aria-current={m._id === s.selectedId ? 'true' : undefined}
                >
                  <Paper withBorder p="xs" radius="sm" bg={m._id === s.selectedId ? 'blue.0' : undefined} data-testid="my-session">
                    <SessionLine s={m}>
                      <Group gap={4} wrap="nowrap">
                        {m.hasNewMessage && (
                          <Indicator color="red" size={10} processing aria-label="New message">
                            <span />
                          </Indicator>
                        )}
                        {m.assignedAgent?._id === s.me && (
                          <Badge color="green" size="sm" variant="light">
                            Connected
                          </Badge>
                        )}
                      </Group>
                    </SessionLine>
                  </Paper>
                </UnstyledButton>
              ))}
            </Stack>
          </ScrollArea.Autosize>
        )}
      </Section>
    </Stack>
  );
}

function LiveChatPanel({ botName }: { botName: string }) {
  const s = useSnapshot(support);
  const { connected } = useSnapshot(live);
  const [resolving, setResolving] = useState(false);
  const canHandle = useContext(CanHandle);
  const session =
    s.mine.find((x) => x._id === s.selectedId) ?? s.open.find((x) => x._id === s.selectedId) ?? (s.closed?._id === s.selectedId ? s.closed : null);
  // Resolved elsewhere while open here: still shown, with nothing left to do but close it.
  const over = session?.status === 'resolved';
  const panel = useRef<HTMLDivElement>(null);
  // On a narrow screen the chat sits below the lists: bring it into view when one is opened.
  useEffect(() => {
    if (s.selectedId && window.innerWidth < 992) panel.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [s.selectedId]);

  if (!session) {
    return (
      <Paper withBorder radius="md" p="md" component="section" aria-label="Live chat">
        <Center mih={360}>
          <Stack align="center" gap={4}>
            <Title order={4}>No Session Selected</Title>
            <Text c="dimmed" ta="center">
              Select a session from the queue to start helping customers
            </Text>
          </Stack>
        </Center>
      </Paper>
    );
  }
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Live chat" ref={panel}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Group gap={6} wrap="nowrap">
              <Indicator color={connected ? 'green' : 'gray'} size={10} position="middle-start" offset={-8} aria-hidden>
                <span />
              </Indicator>
              <Title order={4} pl={6} style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                {session.customerName || 'Customer'}
              </Title>
              <Text size="xs" c={connected ? 'green' : 'dimmed'} data-testid="connection-state">
                {connected ? 'Connected' : 'Disconnected'}
              </Text>
            </Group>
            <Text size="sm" truncate>
              {session.title || 'Customer Chat'}
            </Text>
            {session.customerEmail && (
              <Text size="xs" c="dimmed" truncate>
                {session.customerEmail}
              </Text>
            )}
          </Stack>
          <Group gap="xs" wrap="nowrap">
            {canHandle && !over && (
              <Button size="xs" color="green" onClick={() => setResolving(true)}>
                Resolve
              </Button>
            )}
            <ActionIcon variant="subtle" aria-label="Close chat" onClick={() => void selectSession(null)}>
              <IconX size={18} />
            </ActionIcon>
          </Group>
        </Group>
        <MessageList messages={s.messages} botName={botName} typing={!!s.typing[session._id]} height="max(260px, calc(100vh - 460px))" />
        {canHandle && !over && (
          // One box per conversation: a reply half-written for one customer never goes to another.
          <Composer key={session._id} onSend={sendMessage} onTyping={setTyping} disabled={!connected} placeholder="Type your response..." showHint />
        )}
        <Text size="xs" c={over ? 'dimmed' : connected ? 'green' : 'red'} ta="center">
          {over ? 'This conversation is resolved' : connected ? 'Live chat with customer' : 'Disconnected'}
        </Text>
      </Stack>
      <ResolveModal
        opened={resolving}
        onClose={() => setResolving(false)}
        onResolve={async (form) => {
          const ok = await resolveSession(session._id, form);
          if (ok) void selectSession(null);
          return ok;
        }}
        texts={DASHBOARD_RESOLVE}
      />
    </Paper>
  );
}

/** `canHandle`: the caller's role may take, answer and resolve sessions (else it only watches). */
export function AgentDashboard({ botName, canHandle = true }: { botName: string; canHandle?: boolean }) {
  return (
    <CanHandle.Provider value={canHandle}>
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, md: 5, lg: 4 }}>
          <SessionsPanel />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7, lg: 8 }}>
          <LiveChatPanel botName={botName} />
        </Grid.Col>
      </Grid>
    </CanHandle.Provider>
  );
}
