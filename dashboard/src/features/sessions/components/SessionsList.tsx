// The /sessions list: search, the pinned/starred filter, rows with status and marks (pin and star
// toggles for roles that may mark), delete with confirmation, server pages.
import { useEffect, useState } from 'react';
import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Card,
  Center,
  Group,
  Loader,
  Modal,
  Pagination,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { IconMessages, IconPin, IconPinFilled, IconSearch, IconStar, IconStarFilled, IconTrash } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { useSnapshot } from 'valtio';
import type { ChatSession } from '../api/sessions';
import { filterByTitle, messagePreview, relativeTime, sessionTitle, statusColour } from '../stores/format';
import { DELETE_CONFIRM, pageCount, sessionsActions as act, sessionsList, type Mark, type MarkFilter } from '../stores/sessions';

const EMPTY_FILTERED: Record<Exclude<MarkFilter, 'all'>, string> = {
  pinned: 'No pinned conversations',
  starred: 'No starred conversations',
};

/** A pin or star toggle; pressed when the session carries the mark. */
function MarkToggle({ mark, on, title, onToggle }: { mark: Mark; on: boolean; title: string; onToggle: () => void }) {
  const [verb, undo] = mark === 'pinned' ? ['Pin', 'Unpin'] : ['Star', 'Unstar'];
  const Icon = mark === 'pinned' ? (on ? IconPinFilled : IconPin) : on ? IconStarFilled : IconStar;
  // A plain title, not a Mantine Tooltip: two per row on a page of 50 rows.
  return (
    <ActionIcon
      variant="subtle"
      color={mark === 'pinned' ? 'blue' : 'yellow'}
      aria-label={`${on ? undo : verb} ${title}`}
      aria-pressed={on}
      title={on ? undo : verb}
      onClick={onToggle}
    >
      <Icon size={16} />
    </ActionIcon>
  );
}

function SessionRow({
  s,
  now,
  onOpen,
  onDelete,
  onMark,
}: {
  s: ChatSession;
  now: number;
  onOpen: () => void;
  onDelete?: () => void;
  onMark?: (mark: Mark) => void;
}) {
  const title = sessionTitle(s);
  return (
    <Card withBorder padding="sm" data-testid="session-row">
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <UnstyledButton onClick={onOpen} style={{ flex: 1, minWidth: 0 }} aria-label={`Open ${title}`}>
          <Group gap={6} wrap="nowrap">
            <Box
              w={10}
              h={10}
              style={{ borderRadius: '50%', flexShrink: 0, background: `var(--mantine-color-${statusColour(s.status)}-6)` }}
              aria-hidden
              data-testid="status-dot"
              data-status={s.status}
            />
            <Text fw={600} truncate data-testid="session-title">
              {title}
            </Text>
            {s.isPinned && <IconPin size={14} aria-label="Pinned" />}
            {s.isStarred && <IconStar size={14} aria-label="Starred" color="var(--mantine-color-yellow-6)" />}
          </Group>
          <Text size="sm" c="dimmed" truncate mt={2} data-testid="session-preview">
            {messagePreview(s.lastMessage) || 'No messages yet'}
          </Text>
          <Group gap="xs" mt={6} wrap="wrap">
            <Text size="xs" c="dimmed">
              {relativeTime(s.timestamp, now)}
            </Text>
            <Text size="xs" c="dimmed">
              {s.messageCount} {s.messageCount === 1 ? 'message' : 'messages'}
            </Text>
            <Badge size="xs" variant="light" color={statusColour(s.status)}>
              {s.status}
            </Badge>
            {s.needsHumanSupport && (
              <Badge size="xs" color="orange" variant="filled">
                Needs Support
              </Badge>
            )}
            {s.assignedAgent && (
              <Badge size="xs" color="violet" variant="light">
                Agent Assigned
              </Badge>
            )}
          </Group>
        </UnstyledButton>
        {onMark && (
          <>
            <MarkToggle mark="pinned" on={s.isPinned} title={title} onToggle={() => onMark('pinned')} />
            <MarkToggle mark="starred" on={s.isStarred} title={title} onToggle={() => onMark('starred')} />
          </>
        )}
        {onDelete && (
          <Tooltip label="Delete">
            <ActionIcon variant="subtle" color="red" aria-label={`Delete ${title}`} onClick={onDelete}>
              <IconTrash size={16} />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
    </Card>
  );
}

/**
 * `canDelete`: the caller's role handles support (only those may delete a conversation);
 * `canMark`: it may pin and star (every role but viewer).
 */
export function SessionsList({ botId, canDelete = true, canMark = true }: { botId: string; canDelete?: boolean; canMark?: boolean }) {
  const s = useSnapshot(sessionsList);
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    void act.open(botId);
  }, [botId]);
  // Relative times stay true while the page is open.
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 60000);
    return () => clearInterval(t);
  }, []);

  const rows = filterByTitle(s.sessions, s.search);
  const searching = s.search.trim().length > 0;
  const filtered = s.filter !== 'all';
  const pages = pageCount(s);

  return (
    <Stack gap="md">
      <TextInput
        placeholder="Search conversations..."
        aria-label="Search conversations"
        leftSection={<IconSearch size={16} />}
        value={s.search}
        onChange={(e) => act.setSearch(e.currentTarget.value)}
        maw={480}
      />
      <SegmentedControl
        aria-label="Show conversations"
        value={s.filter}
        onChange={(v) => void act.setFilter(v as MarkFilter)}
        data={[
          { value: 'all', label: 'All' },
          { value: 'pinned', label: 'Pinned' },
          { value: 'starred', label: 'Starred' },
        ]}
        w="fit-content"
        data-testid="sessions-filter"
      />
      <Text size="sm" c="dimmed" data-testid="sessions-total">
        {s.total} {s.total === 1 ? 'conversation' : 'conversations'}
      </Text>

      {s.loading && s.sessions.length === 0 ? (
        <Center py="xl">
          <Loader aria-label="Loading conversations" />
        </Center>
      ) : s.error ? (
        <Stack align="center" py="xl" gap="xs">
          <Text c="red">{s.error}</Text>
          <Button variant="light" onClick={() => void act.reload()}>
            Retry
          </Button>
        </Stack>
      ) : rows.length === 0 ? (
        <Stack align="center" py="xl" gap="xs">
          <IconMessages size={40} color="var(--mantine-color-gray-5)" />
          <Text fw={600}>
            {searching ? 'No conversations found' : filtered ? EMPTY_FILTERED[s.filter as Mark] : 'No conversations yet'}
          </Text>
          <Text size="sm" c="dimmed">
            {searching
              ? 'Try another search.'
              : filtered
                ? 'Mark a conversation with its pin or star to find it here.'
                : 'Conversations appear here when visitors chat with your assistant.'}
          </Text>
        </Stack>
      ) : (
        <Stack gap="xs" style={{ opacity: s.loading ? 0.6 : 1 }}>
          {rows.map((row) => (
            <SessionRow
              key={row._id}
              s={row as ChatSession}
              now={now}
              onOpen={() => navigate(`/botchat?session=${encodeURIComponent(row._id)}`)}
              onDelete={canDelete ? () => setConfirming(row._id) : undefined}
              onMark={canMark ? (mark) => void act.toggleMark(row._id, mark) : undefined}
            />
          ))}
        </Stack>
      )}

      {pages > 1 && (
        <Group justify="center">
          <Pagination total={pages} value={s.page} onChange={(p) => void act.setPage(p)} siblings={1} boundaries={1} size="sm" />
        </Group>
      )}

      <Modal opened={confirming !== null} onClose={() => setConfirming(null)} title="Delete conversation" centered>
        <Text mb="lg">{DELETE_CONFIRM}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirming(null)}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              const id = confirming;
              setConfirming(null);
              if (id) void act.remove(id);
            }}
          >
            Delete
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
