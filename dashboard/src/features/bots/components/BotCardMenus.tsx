// A bot card's menu and tooltips, fetched as the user reaches for the card (see
// components/deferred-part.ts); BotCard draws the same buttons without them until then.
import type { ReactElement, RefObject } from 'react';
import { Menu, Tooltip } from '@mantine/core';
import { IconEdit, IconSettings, IconShare, IconTrash } from '@tabler/icons-react';

/** The tooltip of a card's button, attached to the button the card drew (it stays in place). */
export function Hint({ label, target }: { label: string; target: RefObject<HTMLButtonElement | null> }) {
  return <Tooltip label={label} target={target} />;
}

/** `trigger`: the card's "Actions for …" button. `on*`: the items' handlers (they keep the card's
 *  click); Edit and Delete only when given. */
export function ActionsMenu({
  trigger,
  onShare,
  onEdit,
  onSettings,
  onDelete,
}: {
  trigger: ReactElement;
  onShare: (e: React.MouseEvent) => void;
  onEdit?: (e: React.MouseEvent) => void;
  onSettings: (e: React.MouseEvent) => void;
  onDelete?: (e: React.MouseEvent) => void;
}) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>{trigger}</Menu.Target>
      <Menu.Dropdown onClick={(e) => e.stopPropagation()}>
        <Menu.Item leftSection={<IconShare size={16} />} onClick={onShare}>
          Share
        </Menu.Item>
        {onEdit && (
          <Menu.Item leftSection={<IconEdit size={16} />} onClick={onEdit}>
            Edit
          </Menu.Item>
        )}
        <Menu.Item leftSection={<IconSettings size={16} />} onClick={onSettings}>
          Settings
        </Menu.Item>
        {onDelete && (
          <>
            <Menu.Divider />
            <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={onDelete}>
              Delete Bot
            </Menu.Item>
          </>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
