// The agent conversations screen (/botchat, spec 2 §2): the Support Queue and the conversations
// on the left; the open conversation with its header, actions, messages and composer on the right.
import { useState } from 'react';
import { ActionIcon, Badge, Button, Center, Grid, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { IconPin, IconPinFilled, IconStar, IconStarFilled } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { live } from '@/features/live/socket';
import type { Priority } from '../api/support';
import {
  deleteSession,
  editMessage,
  markSession,
  resolveSession,
  selectSession,
  sendMessage,
  setPriority,
  setTyping,
  support,
  takeSession,
} from '../stores/support';
import { Composer } from './Composer';
import { capital, PRIORITIES, PRIORITY_COLOR, statusColor, timeOf, titleOf } from './format';
import { MessageList } from './MessageList';
import { INBOX_RESOLVE, ResolveModal } from './ResolveModal';
import { SessionList } from './SessionList';
import { SupportQueuePanel } from './SupportQueuePanel';

/**
 * `canHandle`: the caller's role may take, answer, prioritise and resolve; `canEdit`: correct bot
 * messages; `canMark`: pin and star.
 */
export function Inbox({
  botName,
  canHandle = true,
  canEdit = true,
  canMark = true,
}: {
  botName: string;
  canHandle?: boolean;
  canEdit?: boolean;
  canMark?: boolean;
}) {
  const s = useSnapshot(support);
  const { connected } = useSnapshot(live);
  const [resolving, setResolving] = useState(false);
  const session = s.inbox.find((x) => x._id === s.selectedId) ?? s.mine.find((x) => x._id === s.selectedId) ?? null;
  const isLive = !!session && s.live.includes(session._id);
  const waiting = !!session && !!session.needsHumanSupport && !session.assignedAgent && session.status !== 'resolved';

  return (
    <Grid gutter="md">
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Stack gap="md">
          <SupportQueuePanel queue={s.queue} onTake={canHandle ? (id) => void takeSession(id) : undefined} />
          <SessionList
            sessions={s.inbox}
            selectedId={s.selectedId}
            loading={s.loading}
            onSelect={(id) => void selectSession(id)}
            onDelete={canHandle ? (id) => void deleteSession(id) : undefined}
          />
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Paper withBorder radius="md" p="md" component="section" aria-label="Conversation">
          {!session ? (
            <Center mih={320}>
              <Stack align="center" gap={4}>
                <Title order={4}>Select a conversation</Title>
                <Text c="dimmed">Choose a session from the sidebar to start chatting</Text>
              </Stack>
            </Center>
          ) : (
            <Stack gap="sm">
              <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
                <Stack gap={2} style={{ minWidth: 0 }}>
                  <Text size="sm" c="dimmed" data-testid="inbox-bot-name">
                    {botName}
                    {session.assignedAgent ? ' - Human Support' : ''}
                  </Text>
                  <Title order={4} style={{ overflowWrap: 'anywhere' }}>
                    {titleOf(session, 'Chat Session')}
                  </Title>
                  <Text size="xs" c="dimmed">
                    Last updated {timeOf(session.updatedAt ?? session.timestamp)}
                  </Text>
                  <Group gap={6} wrap="wrap">
                    <Badge color={statusColor(session.status)} variant="light">
                      {capital(session.status)}
                    </Badge>
                    {session.priority && (
                      <Badge color={PRIORITY_COLOR[session.priority] ?? 'gray'} variant="light">
                        {capital(session.priority)}
                      </Badge>
                    )}
                    {waiting && <Badge color="red">Needs Human Support</Badge>}
                    {isLive && (
                      <Badge color="green" variant="dot">
                        Live Session
                      </Badge>
                    )}
                  </Group>
                </Stack>
                <Group gap="xs" wrap="wrap">
                  {canMark && (
                    <>
                      <ActionIcon
                        variant={session.isPinned ? 'light' : 'subtle'}
                        size="lg"
                        aria-label={session.isPinned ? 'Unpin conversation' : 'Pin conversation'}
                        aria-pressed={!!session.isPinned}
                        title={session.isPinned ? 'Unpin' : 'Pin'}
                        onClick={() => void markSession(session._id, 'pinned')}
                      >
                        {session.isPinned ? <IconPinFilled size={18} /> : <IconPin size={18} />}
                      </ActionIcon>
                      <ActionIcon
                        variant={session.isStarred ? 'light' : 'subtle'}
                        color="yellow"
                        size="lg"
                        aria-label={session.isStarred ? 'Unstar conversation' : 'Star conversation'}
                        aria-pressed={!!session.isStarred}
                        title={session.isStarred ? 'Unstar' : 'Star'}
                        onClick={() => void markSession(session._id, 'starred')}
                      >
                        {session.isStarred ? <IconStarFilled size={18} /> : <IconStar size={18} />}
                      </ActionIcon>
                    </>
                  )}
                  {canHandle && waiting && (
                    <Button color="red" onClick={() => void takeSession(session._id)}>
                      Take Session
                    </Button>
                  )}
                  <Select
                    aria-label="Priority"
                    placeholder="Priority"
                    data={PRIORITIES}
                    value={session.priority ?? null}
                    onChange={(v) => v && void setPriority(session._id, v as Priority)}
                    allowDeselect={false}
                    disabled={!canHandle}
                    w={130}
                  />
                  {canHandle && (
                    <Button variant="light" color="green" onClick={() => setResolving(true)} disabled={session.status === 'resolved'}>
                      Mark Resolved
                    </Button>
                  )}
                </Group>
              </Group>
              <MessageList
                messages={s.messages}
                botName={botName}
                typing={!!s.typing[session._id]}
                onEdit={canEdit ? editMessage : undefined}
                height="max(280px, calc(100vh - 440px))"
              />
              {/* One box per conversation: a reply half-written for one customer never goes to another. */}
              {canHandle && <Composer key={session._id} onSend={sendMessage} onTyping={setTyping} disabled={!connected} />}
              <ResolveModal
                opened={resolving}
                onClose={() => setResolving(false)}
                onResolve={(form) => resolveSession(session._id, form)}
                texts={INBOX_RESOLVE}
              />
            </Stack>
          )}
        </Paper>
      </Grid.Col>
    </Grid>
  );
}
