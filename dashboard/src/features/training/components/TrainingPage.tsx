// The Training page of one bot: four tabs with counts, each an add form over its list, and a
// real retrain.
import { useEffect, useState } from 'react';
import { Badge, Button, Card, Group, Stack, Tabs, Text } from '@mantine/core';
import { IconBrain } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { PageHeader } from '@/components/PageHeader';
import { ReadOnlyNotice } from '@/components/ReadOnlyNotice';
import { notify } from '@/lib/notify';
import { anyProcessing, loadSources, startTraining, stopTraining, training, type ListKey } from '../stores/training';
import { PdfForm, QaForm, TextForm, WebsiteForm } from './Forms';
import { SourceList } from './SourceList';

const TABS: { key: ListKey; label: string; empty: string }[] = [
  { key: 'pdf', label: 'PDF Documents', empty: 'No PDF documents yet' },
  { key: 'websites', label: 'Websites', empty: 'No websites yet' },
  { key: 'text', label: 'Text Sources', empty: 'No text sources yet' },
  { key: 'qa', label: 'Q&A Pairs', empty: 'No Q&A pairs yet' },
];

/** `role`: the caller's role on the bot; `readOnly` when it may not change training data. */
export function TrainingPage({
  botId,
  botName,
  role = 'owner',
  readOnly = false,
}: {
  botId: string;
  botName: string;
  role?: string;
  readOnly?: boolean;
}) {
  const snap = useSnapshot(training);
  const [tab, setTab] = useState<string | null>('pdf');
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    void loadSources(botId);
    return () => stopTraining();
  }, [botId]);

  async function train() {
    setStarting(true);
    try {
      await startTraining();
      notify.info('Training started');
    } catch (err) {
      notify.error(err instanceof Error && err.message ? err.message : 'Failed to start training');
    } finally {
      setStarting(false);
    }
  }

  const busy = anyProcessing(snap);
  return (
    <>
      <PageHeader
        title="Training"
        subtitle={botName}
        actions={
          !readOnly && (
            <Button leftSection={<IconBrain size={18} />} onClick={() => void train()} loading={starting}>
              Start Training
            </Button>
          )
        }
      />
      {readOnly && <ReadOnlyNotice role={role} />}
      {busy && (
        <Text size="sm" c="dimmed" mb="sm" role="status">
          Training in progress…
        </Text>
      )}
      <Card withBorder radius="md" p={0}>
        <Tabs value={tab} onChange={setTab} keepMounted={false}>
          <Tabs.List style={{ flexWrap: 'wrap' }}>
            {TABS.map((t) => (
              <Tabs.Tab
                key={t.key}
                value={t.key}
                rightSection={
                  <Badge size="sm" variant="light" circle={snap[t.key].length < 10} data-testid={`count-${t.key}`}>
                    {snap[t.key].length}
                  </Badge>
                }
              >
                {t.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {TABS.map((t) => (
            <Tabs.Panel key={t.key} value={t.key} p="md">
              <Stack gap="lg">
                {!readOnly && t.key === 'pdf' && <PdfForm count={snap.pdf.length} />}
                {!readOnly && t.key === 'websites' && <WebsiteForm count={snap.websites.length} />}
                {!readOnly && t.key === 'text' && <TextForm count={snap.text.length} />}
                {!readOnly && t.key === 'qa' && <QaForm count={snap.qa.length} />}
                <Group justify="space-between">
                  <Text fw={600} size="sm">
                    {t.label}
                  </Text>
                </Group>
                <SourceList list={t.key} items={snap[t.key]} empty={t.empty} readOnly={readOnly} />
              </Stack>
            </Tabs.Panel>
          ))}
        </Tabs>
      </Card>
    </>
  );
}
