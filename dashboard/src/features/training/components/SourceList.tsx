import { useState } from 'react';
import { ActionIcon, Group, Loader, Paper, Stack, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { IconCircleCheck, IconCircleX, IconTrash } from '@tabler/icons-react';
import { notify } from '@/lib/notify';
import type { Source } from '../api/sources';
import { removeSource, type ListKey } from '../stores/training';

export function sourceTitle(s: Pick<Source, 'kind' | 'name' | 'url' | 'question'>): string {
  if (s.kind === 'qa') return s.question ?? '';
  return s.name || s.url || 'Untitled source';
}

export function StatusIcon({ source }: { source: Pick<Source, 'status' | 'error'> }) {
  if (source.status === 'processing') {
    return <Loader size={18} aria-label="Processing" role="status" data-status="processing" />;
  }
  if (source.status === 'completed') {
    return (
      <ThemeIcon variant="transparent" color="green" aria-label="Completed" role="img" data-status="completed">
        <IconCircleCheck size={20} />
      </ThemeIcon>
    );
  }
  return (
    <Tooltip label={source.error || 'Training failed'}>
      <ThemeIcon variant="transparent" color="red" aria-label="Failed" role="img" data-status="failed">
        <IconCircleX size={20} />
      </ThemeIcon>
    </Tooltip>
  );
}

/** `readOnly`: the caller's role may not change training data, so no delete buttons. */
export function SourceList({
  list,
  items,
  empty,
  readOnly = false,
}: {
  list: ListKey;
  items: readonly Source[];
  empty: string;
  readOnly?: boolean;
}) {
  const [deleting, setDeleting] = useState<string | null>(null);

  async function remove(s: Source) {
    setDeleting(s._id);
    try {
      await removeSource(list, s._id);
    } catch (err) {
      notify.error(err instanceof Error && err.message ? err.message : 'Failed to delete source');
    } finally {
      setDeleting(null);
    }
  }

  if (items.length === 0) {
    return (
      <Text c="dimmed" size="sm" ta="center" py="md">
        {empty}
      </Text>
    );
  }
  return (
    <Stack gap="xs" data-testid={`list-${list}`}>
      {items.map((s) => {
        const title = sourceTitle(s);
        return (
          <Paper key={s._id} withBorder p="sm" radius="md" data-testid="source-item" data-status={s.status}>
            <Group wrap="nowrap" align="flex-start" gap="sm">
              <StatusIcon source={s} />
              <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
                <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                  {title}
                </Text>
                {s.kind === 'qa' && s.answer && (
                  <Text size="xs" c="dimmed" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
                    {s.answer}
                  </Text>
                )}
                {s.kind === 'text' && s.content && (
                  <Text size="xs" c="dimmed" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
                    {s.content}
                  </Text>
                )}
                {s.kind === 'website' && s.url && s.name && s.name !== s.url && (
                  <Text size="xs" c="dimmed" truncate>
                    {s.url}
                  </Text>
                )}
                {s.status === 'failed' && (
                  <Text size="xs" c="red" data-testid="failure-reason">
                    {s.error || 'Training failed'}
                  </Text>
                )}
              </Stack>
              {!readOnly && (
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Delete ${title}`}
                  loading={deleting === s._id}
                  onClick={() => void remove(s)}
                >
                  <IconTrash size={18} />
                </ActionIcon>
              )}
            </Group>
          </Paper>
        );
      })}
    </Stack>
  );
}
