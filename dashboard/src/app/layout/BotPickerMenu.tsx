// The bot picker's menu, fetched as the user reaches for the picker (see
// components/deferred-part.ts); the sidebar draws the same button without it until then.
import type { ReactElement } from 'react';
import { Menu, Text } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import type { Bot } from '@/features/bots/api/bots';
import { BotAvatar } from '@/features/bots/components/BotAvatar';

export function BotPickerMenu({
  trigger,
  bots,
  activeBotId,
  onPick,
}: {
  trigger: ReactElement;
  bots: readonly Pick<Bot, '_id' | 'name' | 'description' | 'icon'>[];
  activeBotId: string | null;
  onPick: (id: string) => void;
}) {
  return (
    <Menu width="target" position="bottom-start">
      <Menu.Target>{trigger}</Menu.Target>
      <Menu.Dropdown>
        {bots.map((b) => (
          <Menu.Item
            key={b._id}
            leftSection={<BotAvatar name={b.name} icon={b.icon} size="sm" />}
            rightSection={b._id === activeBotId ? <IconCheck size={16} aria-label="Active bot" /> : null}
            onClick={() => onPick(b._id)}
          >
            <Text size="sm" fw={500} truncate>
              {b.name || 'Untitled Assistant'}
            </Text>
            <Text size="xs" c="dimmed" truncate>
              {b.description || 'AI Assistant'}
            </Text>
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
