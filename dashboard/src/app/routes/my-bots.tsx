// My Bots: the user's assistants and pending team invitations.
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import {
  Button,
  Card,
  Group,
  NativeSelect,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { IconBook, IconPlus, IconSearch } from '@tabler/icons-react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useSnapshot } from 'valtio';
import { LazyModal } from '@/components/LazyOverlays';
import { PageHeader } from '@/components/PageHeader';
import type { Bot } from '@/features/bots/api/bots';
import { loadSparklines } from '@/features/analytics/stores/analytics';
import { BotCard } from '@/features/bots/components/BotCard';
import { bots, deleteBot, loadBots, selectBot } from '@/features/bots/stores/bots';
import { displayName, filterBots, type BotSort, type StatusFilter } from '@/features/bots/stores/filter';
import { invitations, loadInvitations } from '@/features/invitations/stores/invitations';
import { loadDashboardStats, overview } from '@/features/overview/stores/overview';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { useOnceTrue } from '@/lib/use-once-true';

// The sparklines load after the list, not before it.
const BotSparkline = lazy(() => import('@/features/analytics/components/BotSparkline').then((m) => ({ default: m.BotSparkline })));
// The create wizard and the share dialog (forms, tabs, snippets) load when first opened, not with
// the list; once loaded they stay mounted so their modals can animate closed.
const CreateBotWizard = lazy(() => import('@/features/bots/components/CreateBotWizard').then((m) => ({ default: m.CreateBotWizard })));
// Pending invitations are drawn only when there are some: their list is fetched then.
const InvitationsList = lazy(() =>
  import('@/features/invitations/components/InvitationsList').then((m) => ({ default: m.InvitationsList })),
);
const ShareDialog = lazy(() => import('@/features/bots/components/ShareDialog').then((m) => ({ default: m.ShareDialog })));

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl">
        {value}
      </Text>
    </Paper>
  );
}

export function MyBotsRoute() {
  const snap = useSnapshot(bots);
  const invSnap = useSnapshot(invitations);
  const overviewSnap = useSnapshot(overview);
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [sort, setSort] = useState<BotSort>('name');
  // /dashboard?create=1&website=… (the landing page's website box, through sign-up) opens the
  // wizard with that website filled in.
  const [wizardOpen, setWizardOpen] = useState(() => params.get('create') === '1');
  const [initialWebsite, setInitialWebsite] = useState(() => params.get('website') ?? undefined);
  const [sharing, setSharing] = useState<Bot | null>(null);
  const [deleting, setDeleting] = useState<Bot | null>(null);
  const wizardUsed = useOnceTrue(wizardOpen);
  const shareUsed = useOnceTrue(sharing !== null);
  const [deleteBusy, setDeleteBusy] = useState(false);

  useEffect(() => {
    void loadBots();
    void loadInvitations();
    void loadDashboardStats();
  }, []);
  // The figures follow the list: a bot created or deleted here changes them.
  const botCount = snap.bots.length;
  useEffect(() => {
    void loadDashboardStats();
  }, [botCount]);
  // Each card's week of conversations (a sparkline), for the bots listed now.
  const botIds = snap.bots.map((b) => b._id).join(',');
  useEffect(() => {
    if (botIds) void loadSparklines(botIds.split(','));
  }, [botIds]);

  // /dashboard?bot={name} (a link or a reload) makes that bot the active one, once per address
  // and only when the active bot is not already so named: a card click has selected its own bot
  // by id (names repeat), and a later pick in the sidebar is not undone when the list changes.
  const botParam = params.get('bot');
  const appliedBotParam = useRef<string | null>(null);
  useEffect(() => {
    if (!botParam || appliedBotParam.current === botParam || !bots.bots.length) return;
    appliedBotParam.current = botParam;
    const active = bots.bots.find((b) => b._id === bots.activeBotId);
    if (active?.name === botParam) return;
    const match = bots.bots.find((b) => b.name === botParam);
    if (match) selectBot(match._id);
  }, [botParam, snap.bots]);

  const list = snap.bots as Bot[];
  const shown = filterBots(list, search, status, sort);
  const activeCount = list.filter((b) => b.status === 'active').length;
  const localConversations = list.reduce((n, b) => n + (b.conversationCount ?? 0), 0);
  const figures = overviewSnap.dashboard?.stats;

  const open = (bot: Bot) => {
    selectBot(bot._id);
    appliedBotParam.current = bot.name || null;
    setParams(bot.name ? { bot: bot.name } : {});
  };
  const goTo = (path: string) => (bot: Bot) => {
    selectBot(bot._id);
    navigate(path);
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await deleteBot(deleting._id);
      notify.success('Bot Deleted', `${displayName(deleting)} was deleted.`);
      setDeleting(null);
    } catch (err) {
      notify.error('Delete Failed', errorMessage(err, 'Unable to delete the bot. Please try again.'));
    } finally {
      setDeleteBusy(false);
    }
  };

  return (
    <>
      <PageHeader
        title="My AI Assistants"
        subtitle={`${plural(list.length, 'bot', 'bots')} · ${plural(invSnap.list.length, 'pending invitation', 'pending invitations')}`}
        actions={
          <>
            <Button component={Link} to="/docs" variant="default" leftSection={<IconBook size={16} />}>
              Documentation
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={() => setWizardOpen(true)}>
              New Bot
            </Button>
          </>
        }
      />

      <SimpleGrid cols={{ base: 2, sm: 4 }} mb="lg">
        <Stat label="Total Bots" value={figures?.totalBots ?? list.length} />
        <Stat label="Active Bots" value={figures?.activeBots ?? activeCount} />
        <Stat label="Total Conversations" value={figures?.totalConversations ?? localConversations} />
        <Stat label="Total Messages" value={figures?.totalMessages ?? 0} />
      </SimpleGrid>

      {invSnap.list.length > 0 && (
        <Suspense fallback={null}>
          <InvitationsList onResponded={(accepted) => accepted && void loadBots()} />
        </Suspense>
      )}

      <Group gap="sm" mb="md" wrap="wrap">
        <TextInput
          placeholder="Search assistants..."
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          style={{ flex: 1, minWidth: 200 }}
          aria-label="Search assistants"
        />
        {/* Native selects: the same field, and the browser's list (Select's combobox would bring
            floating-ui and Popover, about 25 kB gzipped, into the first screen). */}
        <NativeSelect
          aria-label="Status filter"
          w={150}
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value as StatusFilter)}
          data={[
            { value: 'all', label: 'All Status' },
            { value: 'active', label: 'Active' },
            { value: 'inactive', label: 'Inactive' },
          ]}
        />
        <NativeSelect
          aria-label="Sort"
          w={130}
          value={sort}
          onChange={(e) => setSort(e.currentTarget.value as BotSort)}
          data={[
            { value: 'name', label: 'Name' },
            { value: 'status', label: 'Status' },
            { value: 'date', label: 'Date' },
          ]}
        />
      </Group>

      {shown.length === 0 && list.length > 0 ? (
        <Stack align="center" py="xl" gap="xs">
          <Text fw={600}>No bots found</Text>
          <Button
            variant="subtle"
            onClick={() => {
              setSearch('');
              setStatus('all');
            }}
          >
            Clear search
          </Button>
        </Stack>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          <UnstyledButton onClick={() => setWizardOpen(true)} aria-label="Create Assistant">
            <Card withBorder padding="md" h="100%" style={{ borderStyle: 'dashed' }}>
              <Stack align="center" justify="center" h="100%" mih={120} gap={4}>
                <IconPlus />
                <Text fw={600}>Create Assistant</Text>
                <Text size="sm" c="dimmed">
                  Set up a new AI assistant
                </Text>
              </Stack>
            </Card>
          </UnstyledButton>
          {shown.map((bot) => (
            <BotCard
              key={bot._id}
              bot={bot}
              active={bot._id === snap.activeBotId}
              onOpen={open}
              onShare={setSharing}
              onEdit={goTo('/preview')}
              onSettings={goTo('/bot-settings')}
              onDelete={setDeleting}
            >
              <Suspense fallback={null}>
                <BotSparkline botId={bot._id} />
              </Suspense>
            </BotCard>
          ))}
        </SimpleGrid>
      )}

      {wizardUsed && (
        <Suspense fallback={null}>
          <CreateBotWizard
            opened={wizardOpen}
            initialWebsite={initialWebsite}
            onClose={() => {
              setWizardOpen(false);
              // The landing page's website fills the first wizard only.
              setInitialWebsite(undefined);
              if (params.has('create')) setParams({}, { replace: true });
            }}
          />
        </Suspense>
      )}
      {shareUsed && (
        <Suspense fallback={null}>
          <ShareDialog bot={sharing} onClose={() => setSharing(null)} />
        </Suspense>
      )}
      <LazyModal opened={deleting !== null} onClose={() => setDeleting(null)} title="Delete Bot">
        <Text mb="md">Are you sure you want to delete "{deleting ? displayName(deleting) : ''}"?</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setDeleting(null)}>
            Cancel
          </Button>
          <Button color="red" loading={deleteBusy} onClick={confirmDelete}>
            Delete Bot
          </Button>
        </Group>
      </LazyModal>
    </>
  );
}
