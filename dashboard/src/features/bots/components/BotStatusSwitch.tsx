// The active/inactive switch of a bot (its card on /dashboard and Bot Settings). Turning it is
// confirmed first: while a bot is inactive its visitors see the offline state and the server
// refuses their messages (engine/src/chat/service.rs), so it must never flip by a stray click.
import { useState } from 'react';
import { Button, Group, Switch, Text } from '@mantine/core';
import { LazyModal } from '@/components/LazyOverlays';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { can } from '@/lib/permissions';
import type { Bot, BotStatus } from '../api/bots';
import { displayName } from '../stores/filter';
import { setBotStatus } from '../stores/bots';

export const DEACTIVATE_TEXT =
  'Visitors will see the offline state: the chat page and the widget on your site say the assistant is not available, and their messages are refused until you turn it back on.';
export const ACTIVATE_TEXT = 'Visitors can chat with the assistant again, on the chat page and in the widget.';

/** `size`: the card's compact switch or Bot Settings' larger one. Read-only for roles that may not edit the bot. */
export function BotStatusSwitch({ bot, size = 'sm' }: { bot: Bot; size?: 'xs' | 'sm' | 'md' }) {
  const [target, setTarget] = useState<BotStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const name = displayName(bot);
  const active = bot.status === 'active';
  const mayEdit = can(bot.role, 'editBot');

  const confirm = async () => {
    if (!target) return;
    setBusy(true);
    try {
      await setBotStatus(bot._id, target);
      notify.success(target === 'active' ? 'Assistant activated' : 'Assistant deactivated', `${name} is now ${target}.`);
      setTarget(null);
    } catch (err) {
      notify.error('Status not changed', errorMessage(err, 'Failed to change the status'));
    } finally {
      setBusy(false);
    }
  };

  return (
    // The card opens the bot on click: the switch and its dialog keep their clicks.
    <div onClick={(e) => e.stopPropagation()} style={{ display: 'contents' }}>
      <Switch
        size={size}
        checked={active}
        disabled={!mayEdit}
        label={active ? 'Active' : 'Inactive'}
        aria-label={`${name} is ${active ? 'active' : 'inactive'}`}
        data-testid="bot-status-switch"
        onChange={(e) => setTarget(e.currentTarget.checked ? 'active' : 'inactive')}
      />
      <LazyModal
        opened={target !== null}
        onClose={() => !busy && setTarget(null)}
        title={target === 'active' ? `Activate ${name}?` : `Deactivate ${name}?`}
        centered
      >
        <Text mb="lg">{target === 'active' ? ACTIVATE_TEXT : DEACTIVATE_TEXT}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setTarget(null)} disabled={busy}>
            Cancel
          </Button>
          <Button color={target === 'active' ? 'green' : 'red'} onClick={() => void confirm()} loading={busy}>
            {target === 'active' ? 'Activate' : 'Deactivate'}
          </Button>
        </Group>
      </LazyModal>
    </div>
  );
}
