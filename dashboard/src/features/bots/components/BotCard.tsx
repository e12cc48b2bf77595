import { useRef } from 'react';
import { ActionIcon, Box, Card, Group, Stack, Text } from '@mantine/core';
import { IconDots, IconEdit, IconSettings, IconShare } from '@tabler/icons-react';
import { useDeferredPart } from '@/components/deferred-part';
import { can } from '@/lib/permissions';
import type { Bot } from '../api/bots';
import { displayName } from '../stores/filter';
import { BotAvatar } from './BotAvatar';
import { BotStatusSwitch } from './BotStatusSwitch';

export interface BotCardActions {
  onOpen: (bot: Bot) => void;
  onShare: (bot: Bot) => void;
  onEdit: (bot: Bot) => void;
  onSettings: (bot: Bot) => void;
  onDelete: (bot: Bot) => void;
}

/** `children` goes under the card's actions (the page's sparkline of the bot's week). */
export function BotCard({ bot, active, children, ...on }: { bot: Bot; active: boolean; children?: React.ReactNode } & BotCardActions) {
  const name = displayName(bot);
  // Edit opens Customize, which the caller's role may only look at; Delete is the owner's.
  const mayEdit = can(bot.role, 'editBot');
  const mayDelete = can(bot.role, 'deleteBot');
  const stop = (fn: (b: Bot) => void) => (e: React.MouseEvent) => {
    e.stopPropagation();
    fn(bot);
  };
  // The menu and the tooltips arrive as the user reaches for the card (the tooltips attach to
  // the buttons drawn here, which stay).
  const { ref, intent, full } = useDeferredPart(() => import('./BotCardMenus'));
  const shareRef = useRef<HTMLButtonElement>(null);
  const editRef = useRef<HTMLButtonElement>(null);
  const settingsRef = useRef<HTMLButtonElement>(null);
  const actions = (
    <ActionIcon
      variant="subtle"
      color="gray"
      aria-label={`Actions for ${name}`}
      aria-haspopup="menu"
      aria-expanded={false}
      onClick={(e) => e.stopPropagation()}
    >
      <IconDots size={18} />
    </ActionIcon>
  );
  return (
    <Card
      ref={ref}
      {...intent}
      withBorder
      padding="md"
      data-testid="bot-card"
      onClick={() => on.onOpen(bot)}
      style={{ cursor: 'pointer', borderColor: active ? 'var(--mantine-color-blue-filled)' : undefined }}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          <Box pos="relative">
            <BotAvatar name={bot.name} icon={bot.icon} size="lg" radius="md" />
            {bot.status === 'active' && (
              <Box
                aria-label="Active"
                pos="absolute"
                bottom={-2}
                right={-2}
                w={12}
                h={12}
                bg="green"
                style={{ borderRadius: '50%', border: '2px solid white' }}
              />
            )}
          </Box>
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text fw={600} truncate>
              {name}
            </Text>
            <Text size="sm" c="dimmed" lineClamp={2}>
              {bot.description?.trim() || 'No description provided.'}
            </Text>
          </Stack>
        </Group>
        {full ? (
          <full.ActionsMenu
            trigger={actions}
            onShare={stop(on.onShare)}
            onEdit={mayEdit ? stop(on.onEdit) : undefined}
            onSettings={stop(on.onSettings)}
            onDelete={mayDelete ? stop(on.onDelete) : undefined}
          />
        ) : (
          actions
        )}
      </Group>
      <Group gap="xs" mt="md">
        <ActionIcon ref={shareRef} variant="light" aria-label="Share" onClick={stop(on.onShare)}>
          <IconShare size={16} />
        </ActionIcon>
        {mayEdit && (
          <ActionIcon ref={editRef} variant="light" aria-label="Edit" onClick={stop(on.onEdit)}>
            <IconEdit size={16} />
          </ActionIcon>
        )}
        <ActionIcon ref={settingsRef} variant="light" aria-label="Settings" onClick={stop(on.onSettings)}>
          <IconSettings size={16} />
        </ActionIcon>
        {full && (
          <>
            <full.Hint label="Share" target={shareRef} />
            {mayEdit && <full.Hint label="Edit" target={editRef} />}
            <full.Hint label="Settings" target={settingsRef} />
          </>
        )}
        <Text size="xs" c="dimmed" ml="auto" data-testid="bot-conversations">
          {bot.conversationCount ?? 0} {bot.conversationCount === 1 ? 'Conversation' : 'Conversations'}
        </Text>
      </Group>
      <Group mt="xs" gap="xs">
        <BotStatusSwitch bot={bot} size="xs" />
      </Group>
      {children}
    </Card>
  );
}
