// Customize (/preview): the editor on the left, the live test chat on the right.
import { useEffect, useState } from 'react';
import { Button, Grid, Group, Modal, Text } from '@mantine/core';
import { IconDeviceFloppy, IconRestore } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import type { Bot } from '@/features/bots/api/bots';
import { PageHeader } from '@/components/PageHeader';
import { ReadOnlyNotice } from '@/components/ReadOnlyNotice';
import { notify } from '@/lib/notify';
import { customize, openBot, resetCustomization, saveCustomization } from '../stores/customize';
import { RESET_CONFIRM } from '../stores/model';
import { CustomizeEditor } from './CustomizeEditor';
import { TestChatPanel } from './TestChatPanel';

export const SAVED = 'Configuration saved successfully!';
export const SAVE_FAILED = 'Failed to save configuration';

/** `readOnly`: the caller's role may not edit the bot; the editor shows its values, disabled. */
export function CustomizePage({ bot, readOnly = false }: { bot: Bot; readOnly?: boolean }) {
  const snap = useSnapshot(customize);
  const [confirmReset, setConfirmReset] = useState(false);

  useEffect(() => {
    void openBot(bot);
    // Only a change of bot reloads the editor; saving updates the bot in the list too.
  }, [bot._id]);

  async function save() {
    const result = await saveCustomization();
    if (result.ok) notify.success(SAVED);
    else notify.error(SAVE_FAILED, result.reason ?? undefined);
  }

  return (
    <>
      <PageHeader
        title="Customize"
        subtitle={bot.name || 'Untitled Assistant'}
        actions={
          !readOnly && (
            <>
              <Button variant="default" leftSection={<IconRestore size={16} />} onClick={() => setConfirmReset(true)}>
                Reset
              </Button>
              <Button leftSection={<IconDeviceFloppy size={16} />} loading={snap.saving} onClick={() => void save()}>
                Save
              </Button>
            </>
          )
        }
      />
      {readOnly && <ReadOnlyNotice role={typeof bot.role === 'string' ? bot.role : 'viewer'} />}
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          {snap.botId === bot._id && <CustomizeEditor readOnly={readOnly} />}
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <TestChatPanel botId={bot._id} icon={bot.icon} canTest={!readOnly} />
        </Grid.Col>
      </Grid>
      <Modal opened={confirmReset} onClose={() => setConfirmReset(false)} title="Reset" centered>
        <Text size="sm">{RESET_CONFIRM}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setConfirmReset(false)}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              resetCustomization();
              setConfirmReset(false);
            }}
          >
            Reset to defaults
          </Button>
        </Group>
      </Modal>
    </>
  );
}
