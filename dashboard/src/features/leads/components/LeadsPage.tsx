// The Leads page (/leads, spec 1 "Leads page"): header with the count, New Lead and Export,
// the five cards, the filter bar, the selection bar, the table, the empty states, Lead
// Insights, and the Create, Edit and Delete dialogs.
import { useEffect, useMemo, useState } from 'react';
import { Anchor, Button, Card, Center, Group, Loader, Menu, Modal, NativeSelect, Pagination, Paper, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconDownload, IconPlus, IconSearch, IconUsers } from '@tabler/icons-react';
import { useSnapshot } from 'valtio';
import { PageHeader } from '@/components/PageHeader';
import { bots as botsStore } from '@/features/bots/stores/bots';
import { can } from '@/lib/permissions';
import type { Lead, LeadSort } from '../api/leads';
import { DELETE_CONFIRM, filtersActive, PRIORITY_OPTIONS, selectionLabel, SORT_OPTIONS, STATUS_OPTIONS } from '../stores/format';
import { leads, leadsActions as act, offersAllMatching, pageCount, selectedCount, startLeads, tickedIds } from '../stores/leads';
import { LeadFormModal } from './LeadFormModal';
import { LeadInsights } from './LeadInsights';
import { LeadStatCards } from './LeadStatCards';
import { LeadsTable } from './LeadsTable';

export function LeadsPage() {
  const s = useSnapshot(leads);
  const b = useSnapshot(botsStore);
  const [editing, setEditing] = useState<Lead | null>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Lead | null>(null);

  useEffect(() => startLeads(), []);

  const roles = useMemo(() => Object.fromEntries(b.bots.map((bot) => [bot._id, bot.role])), [b.bots]);
  const botOptions = b.bots.map((bot) => ({ value: bot._id, label: bot.name ?? 'Untitled bot' }));
  const editableBots = b.bots.filter((bot) => can(bot.role, 'editLeads')).map((bot) => ({ value: bot._id, label: bot.name ?? 'Untitled bot' }));
  const defaultBot = s.botId !== 'all' ? s.botId : (b.activeBotId ?? '');
  const filtering = filtersActive(s);
  const rows = s.leads as Lead[];
  // The header counts every lead of the chosen bots (as the cards do), not the search's matches.
  const captured = s.stats?.total ?? s.total;

  return (
    <>
      <PageHeader
        title="Leads"
        subtitle={<span data-testid="leads-count">{s.loaded ? `${captured} leads captured` : 'Loading...'}</span>}
        actions={
          <>
            {editableBots.length > 0 && (
              <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                New Lead
              </Button>
            )}
            <Menu position="bottom-end">
              <Menu.Target>
                <Button variant="default" leftSection={<IconDownload size={16} />} loading={s.exporting}>
                  Export
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => void act.exportLeads('csv')}>Export as CSV</Menu.Item>
                <Menu.Item onClick={() => void act.exportLeads('json')}>Export as JSON</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </>
        }
      />

      <LeadStatCards stats={s.stats as typeof leads.stats} />

      <Card withBorder padding="sm" mb="md">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} spacing="sm">
          <NativeSelect aria-label="Bot" data={[{ value: 'all', label: 'All Bots' }, ...botOptions]} value={s.botId} onChange={(e) => void act.setBot(e.currentTarget.value)} />
          <TextInput
            aria-label="Search leads"
            placeholder="Search leads by name, email, company..."
            leftSection={<IconSearch size={16} />}
            value={s.search}
            onChange={(e) => act.setSearch(e.currentTarget.value)}
          />
          <NativeSelect aria-label="Status" data={[{ value: 'all', label: 'All Status' }, ...STATUS_OPTIONS]} value={s.status} onChange={(e) => void act.setStatusFilter(e.currentTarget.value)} />
          <NativeSelect aria-label="Priority" data={[{ value: 'all', label: 'All Priority' }, ...PRIORITY_OPTIONS]} value={s.priority} onChange={(e) => void act.setPriority(e.currentTarget.value)} />
          <NativeSelect aria-label="Sort" data={SORT_OPTIONS} value={s.sort} onChange={(e) => void act.setSort(e.currentTarget.value as LeadSort)} />
        </SimpleGrid>
      </Card>

      {selectedCount(s) > 0 && (
        <Paper withBorder p="sm" mb="md" bg="blue.0" data-testid="selection-bar">
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Group gap="xs">
              <Text fw={600}>{selectionLabel(selectedCount(s))}</Text>
              {offersAllMatching(s) && (
                <Button size="xs" variant="subtle" onClick={() => act.selectAllMatching()}>
                  Select all {s.total} leads
                </Button>
              )}
            </Group>
            <Group gap="xs">
              <Button size="xs" leftSection={<IconDownload size={14} />} onClick={() => void act.exportLeads('csv', true)} loading={s.exporting}>
                Export Selected
              </Button>
              <Button size="xs" variant="default" onClick={() => act.clearSelection()}>
                Clear Selection
              </Button>
            </Group>
          </Group>
        </Paper>
      )}

      {!s.loaded ? (
        <Center py="xl">
          <Loader aria-label="Loading leads" />
        </Center>
      ) : rows.length === 0 ? (
        <Stack align="center" py="xl" gap="xs" data-testid="leads-empty">
          <IconUsers size={40} color="var(--mantine-color-gray-5)" />
          <Text fw={600}>{filtering ? 'No leads found' : 'No leads yet'}</Text>
          <Text size="sm" c="dimmed" ta="center">
            {filtering ? 'Try adjusting your search or filters' : 'Leads will appear here when visitors provide their contact information'}
          </Text>
          {filtering && (
            <Anchor component="button" type="button" onClick={() => void act.clearFilters()}>
              Clear all filters
            </Anchor>
          )}
        </Stack>
      ) : (
        <Card withBorder padding={0} style={{ opacity: s.loading ? 0.7 : 1 }}>
          <LeadsTable
            rows={rows}
            selected={tickedIds(s)}
            roles={roles}
            onToggle={act.toggle}
            onToggleAll={act.toggleAll}
            onStatus={(id, status) => void act.setStatus(id, status)}
            onEdit={setEditing}
            onDelete={setDeleting}
          />
        </Card>
      )}

      {pageCount(s) > 1 && (
        <Group justify="center" mt="md">
          <Pagination total={pageCount(s)} value={s.page} onChange={(p) => void act.setPage(p)} siblings={1} boundaries={1} size="sm" />
        </Group>
      )}

      {rows.length > 0 && s.stats && <LeadInsights stats={s.stats as NonNullable<typeof leads.stats>} />}

      <LeadFormModal
        opened={creating || editing !== null}
        lead={editing}
        bots={editableBots}
        defaultBotId={editableBots.some((o) => o.value === defaultBot) ? defaultBot : ''}
        onClose={() => {
          setCreating(false);
          setEditing(null);
        }}
        onSubmit={(input) => (editing ? act.update(editing._id, input) : act.create(input))}
      />

      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title="Delete lead" centered>
        <Text mb="lg">{DELETE_CONFIRM}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setDeleting(null)}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              const lead = deleting;
              setDeleting(null);
              if (lead) void act.remove(lead._id);
            }}
          >
            Delete
          </Button>
        </Group>
      </Modal>
    </>
  );
}
