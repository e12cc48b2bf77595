// The dashboard overview (spec 1 "Dashboard overview"): four cards with growth against the
// previous period, the active bot's performance, system status, quick actions and recent
// activity — all from the server, refreshed every 30 seconds.
import { useEffect } from 'react';
import {
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconMessages, IconSchool } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSnapshot } from 'valtio';
import { loadMe } from '@/features/auth/stores/session';
import { activeBot, bots, loadBots } from '@/features/bots/stores/bots';
import type { Period } from '../api/overview';
import {
  formatGrowth,
  formatPercent,
  formatSeconds,
  loadBotStats,
  loadDashboardStats,
  loadHealth,
  overview,
  REFRESH_MS,
  type HealthState,
} from '../stores/overview';

const PERIODS: { value: Period; label: string }[] = [
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
];

function StatCard({ label, value, growth, period }: { label: string; value: number | undefined; growth: string; period: string }) {
  const tone = growth.startsWith('-') ? 'red' : growth === '+0%' ? 'gray' : 'green';
  return (
    <Paper withBorder p="md" aria-label={label}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl" data-testid={`overview-${label}`}>
        {value ?? 0}
      </Text>
      <Text size="xs" c={tone}>
        {growth} <Text span c="dimmed" inherit>vs previous {period}</Text>
      </Text>
    </Paper>
  );
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} ta="right">
        {value}
      </Text>
    </Group>
  );
}

function StatusRow({ label, text, ok }: { label: string; text: string; ok: boolean | null }) {
  return (
    <Group justify="space-between" wrap="nowrap">
      <Text size="sm">{label}</Text>
      <Badge color={ok === null ? 'gray' : ok ? 'green' : 'red'} variant="light">
        {text}
      </Badge>
    </Group>
  );
}

const healthText = (h: HealthState, good: string) =>
  h === 'ok' ? good : h === 'unknown' ? 'Checking...' : h === 'degraded' ? 'Error' : 'Unreachable';

export function Overview() {
  const snap = useSnapshot(overview);
  const botSnap = useSnapshot(bots);
  const bot = activeBot(botSnap);
  const botId = bot?._id ?? null;

  // On open: bots, overview figures, plan usage and health; then every 30 s the figures.
  useEffect(() => {
    void loadBots();
    void loadMe({ keepOnError: true });
    void loadHealth();
    void loadDashboardStats();
    const timer = setInterval(() => {
      void loadDashboardStats();
      void loadHealth();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    void loadBotStats(botId);
    if (!botId) return;
    const timer = setInterval(() => void loadBotStats(botId), REFRESH_MS);
    return () => clearInterval(timer);
  }, [botId]);

  const d = snap.dashboard;
  const periodLabel = PERIODS.find((p) => p.value === snap.period)?.label ?? snap.period;
  const perf = snap.botStats && snap.botStats.botId === botId ? snap.botStats : null;

  return (
    <Stack gap="lg">
      <Group justify="space-between" wrap="wrap">
        <Title order={4}>Overview</Title>
        <SegmentedControl
          aria-label="Period"
          size="xs"
          value={snap.period}
          onChange={(v) => void loadDashboardStats(v as Period)}
          data={PERIODS}
        />
      </Group>

      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <StatCard label="Total Conversations" value={d?.stats.totalConversations} growth={formatGrowth(d?.growth.conversations)} period={periodLabel} />
        <StatCard label="Active Users" value={d?.stats.activeUsers} growth={formatGrowth(d?.growth.users)} period={periodLabel} />
        <StatCard label="Resolved Sessions" value={d?.stats.resolvedSessions} growth={formatGrowth(d?.growth.resolution)} period={periodLabel} />
        <StatCard label="Credits Used" value={d?.stats.creditsUsed} growth={formatGrowth(d?.growth.credits)} period={periodLabel} />
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            Bot Performance
          </Title>
          {!bot ? (
            <Text c="dimmed">Select a bot to view performance metrics</Text>
          ) : !perf ? (
            <Text c="dimmed">Loading bot statistics...</Text>
          ) : (
            <Stack gap={6}>
              <Row label="Total Messages" value={String(perf.totalMessages)} />
              <Row label="Avg Response Time" value={formatSeconds(perf.averageResponseTime)} />
              <Row label="Resolution Rate" value={formatPercent(perf.resolutionRate)} />
              <Row label="Last Updated" value={perf.lastUpdated ? new Date(perf.lastUpdated).toLocaleDateString() : '—'} />
            </Stack>
          )}
        </Paper>

        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            System Status
          </Title>
          <Stack gap={8}>
            <StatusRow label="API Status" text={healthText(snap.api, 'Operational')} ok={snap.api === 'unknown' ? null : snap.api === 'ok'} />
            <StatusRow
              label="Bot Status"
              text={bot ? (bot.status === 'active' ? 'Active' : 'Inactive') : 'No Bot Selected'}
              ok={bot ? bot.status === 'active' : null}
            />
            <StatusRow label="Database" text={healthText(snap.database, 'Connected')} ok={snap.database === 'unknown' ? null : snap.database === 'ok'} />
          </Stack>
        </Paper>
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            Quick Actions
          </Title>
          <Group gap="sm">
            <Button component={Link} to="/training" variant="light" leftSection={<IconSchool size={16} />}>
              Train your bot
            </Button>
            <Button component={Link} to="/botchat" variant="light" leftSection={<IconMessages size={16} />}>
              Open conversations
            </Button>
          </Group>
        </Paper>

        <Paper withBorder p="md">
          <Title order={5} mb="sm">
            Recent Activity
          </Title>
          {d && d.recentActivity.length > 0 ? (
            <Stack gap={6} aria-label="Recent activity">
              {d.recentActivity.map((a) => (
                <Group key={a.id} justify="space-between" wrap="nowrap" gap="xs">
                  <Text size="sm" style={{ minWidth: 0 }} truncate>
                    {a.action}
                  </Text>
                  <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
                    {new Date(a.time).toLocaleString()}
                  </Text>
                </Group>
              ))}
            </Stack>
          ) : (
            <Text c="dimmed">No recent activity</Text>
          )}
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
