// The inbox's conversations, pinned ones first: select one, delete one (with the spec's toasts,
// from the store; only for roles that may, so without `onDelete` no delete button shows). The pin and star marks show beside the title; they are set in the open
// conversation's header.
import { ActionIcon, Badge, Group, Indicator, NavLink, Paper, ScrollArea, Stack, Text, Title } from '@mantine/core';
import { IconPinFilled, IconStarFilled, IconTrash } from '@tabler/icons-react';
import { pinnedFirst } from '../stores/events';
import type { ChatSession } from '../api/support';
import { capital, statusColor, timeOf, titleOf } from './format';

export function SessionList({
  sessions,
  selectedId,
  loading,
  onSelect,
  onDelete,
}: {
  sessions: readonly ChatSession[];
  selectedId: string | null;
  loading: boolean;
  onSelect: (id: string) => void;
  onDelete?: (id: string) => void;
}) {
  return (
    <Paper withBorder radius="md" p="xs" component="section" aria-label="Conversations">
      <Title order={5} px="xs" py={4}>
        Conversations ({sessions.length})
      </Title>
      <ScrollArea.Autosize mah="calc(100vh - 320px)" type="auto" scrollbars="y" styles={{ content: { display: 'block', minWidth: 0 } }}>
        <Stack gap={2}>
          {!sessions.length && (
            <Text size="sm" c="dimmed" p="xs">
              {loading ? 'Loading conversations...' : 'No conversations yet'}
            </Text>
          )}
          {pinnedFirst(sessions).map((s) => {
            const title = titleOf(s, 'Chat Session');
            return (
              <Group key={s._id} gap={4} wrap="nowrap" align="center">
                <NavLink
                  component="button"
                  active={s._id === selectedId}
                  onClick={() => onSelect(s._id)}
                  aria-current={s._id === selectedId ? 'true' : undefined}
                  style={{ flex: 1, minWidth: 0, borderRadius: 6 }}
                  styles={{ body: { minWidth: 0, overflow: 'hidden' } }}
                  label={
                    <Group gap={6} wrap="nowrap">
                      <Indicator disabled={!s.hasNewMessage} size={8} color="red" position="middle-start" offset={-6} label="">
                        <Text size="sm" fw={s.hasNewMessage ? 700 : 500} truncate>
                          {title}
                        </Text>
                      </Indicator>
                      {s.isPinned && <IconPinFilled size={12} aria-label="Pinned" style={{ flexShrink: 0 }} />}
                      {s.isStarred && (
                        <IconStarFilled size={12} aria-label="Starred" color="var(--mantine-color-yellow-6)" style={{ flexShrink: 0 }} />
                      )}
                      {s.hasNewMessage && (
                        <Badge size="xs" color="red" variant="filled" aria-label="New message">
                          New
                        </Badge>
                      )}
                    </Group>
                  }
                  description={
                    <Group gap={6} wrap="nowrap">
                      <Text size="xs" c="dimmed" truncate style={{ flex: 1 }}>
                        {s.lastMessage || 'No messages yet'}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {timeOf(s.updatedAt ?? s.timestamp)}
                      </Text>
                    </Group>
                  }
                  rightSection={
                    s.needsHumanSupport && !s.assignedAgent && s.status !== 'resolved' ? (
                      <Badge size="xs" color="red">
                        Help
                      </Badge>
                    ) : (
                      <Badge size="xs" variant="light" color={statusColor(s.status)}>
                        {capital(s.status)}
                      </Badge>
                    )
                  }
                />
                {onDelete && (
                  <ActionIcon variant="subtle" color="red" aria-label={`Delete ${title}`} onClick={() => onDelete(s._id)} style={{ flexShrink: 0 }}>
                    <IconTrash size={16} />
                  </ActionIcon>
                )}
              </Group>
            );
          })}
        </Stack>
      </ScrollArea.Autosize>
    </Paper>
  );
}
