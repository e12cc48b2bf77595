// The /stats charts for the active bot (issue 18): conversations and messages over time,
// handoff and resolution rates, agents' first-response percentiles, satisfaction, and the
// questions the bot could not answer. Each chart has a skeleton while loading, an empty state
// and a tooltip; the period is the overview's (one control for the page).
import { useEffect, type ReactNode } from 'react';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Alert, Center, Paper, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useSnapshot } from 'valtio';
import type { Period } from '@/features/overview/api/overview';
import { REFRESH_MS } from '@/features/overview/stores/overview';
import type { BotAnalytics } from '../api/analytics';
import { csatSeries, formatDuration, hasData, rateSeries, responseSeries, volumeSeries } from '../lib/series';
import { analytics, loadAnalytics } from '../stores/analytics';

const CHART_HEIGHT = 220;

function ChartCard({ title, loading, empty, emptyText, children }: { title: string; loading: boolean; empty: boolean; emptyText: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" aria-label={title} data-testid="chart-card">
      <Title order={5} mb="sm">
        {title}
      </Title>
      {loading ? (
        <Skeleton h={CHART_HEIGHT} data-testid="chart-skeleton" />
      ) : empty ? (
        <Center h={CHART_HEIGHT}>
          <Text c="dimmed" size="sm" ta="center" data-testid="chart-empty">
            {emptyText}
          </Text>
        </Center>
      ) : (
        <div data-testid="chart">{children}</div>
      )}
    </Paper>
  );
}

export function AnalyticsCharts({ botId, period }: { botId: string; period: Period }) {
  const snap = useSnapshot(analytics);

  useEffect(() => {
    void loadAnalytics(botId, period);
    const timer = setInterval(() => void loadAnalytics(botId, period), REFRESH_MS);
    return () => clearInterval(timer);
  }, [botId, period]);

  const data = snap.data && snap.data.botId === botId && snap.data.period === period ? (snap.data as BotAnalytics) : null;
  const loading = !data && !snap.error;
  const has = data ? hasData(data) : { volume: false, rates: false, response: false, csat: false };
  const common = { h: CHART_HEIGHT, dataKey: 'label', tooltipAnimationDuration: 0, withLegend: true } as const;

  return (
    <Stack gap="lg" aria-label="Charts">
      <Title order={4}>Trends</Title>
      {snap.error && !data && (
        <Alert color="red" title="Analytics are unavailable">
          {snap.error}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <ChartCard title="Conversations and messages" loading={loading} empty={!has.volume} emptyText="No conversations in this period yet.">
          {data && (
            <AreaChart
              {...common}
              data={volumeSeries(data)}
              curveType="linear"
              areaProps={{ isAnimationActive: false }}
              series={[
                { name: 'Conversations', color: 'blue.6' },
                { name: 'Visitor', label: 'Visitor messages', color: 'teal.6' },
                { name: 'Bot', label: 'Bot messages', color: 'violet.6' },
                { name: 'Agent', label: 'Agent messages', color: 'orange.6' },
              ]}
            />
          )}
        </ChartCard>
        <ChartCard title="Handoff and resolution rates" loading={loading} empty={!has.rates} emptyText="No conversations in this period yet.">
          {data && (
            <LineChart
              {...common}
              data={rateSeries(data)}
              connectNulls
              lineProps={{ isAnimationActive: false }}
              valueFormatter={(v) => `${v}%`}
              series={[
                { name: 'Handoff rate', color: 'orange.6' },
                { name: 'Resolution rate', color: 'green.6' },
              ]}
            />
          )}
        </ChartCard>
        <ChartCard
          title="Agent first response"
          loading={loading}
          empty={!has.response}
          emptyText="No agent has answered a request for a person in this period."
        >
          {data && (
            <LineChart
              {...common}
              data={responseSeries(data)}
              connectNulls
              lineProps={{ isAnimationActive: false }}
              valueFormatter={(v) => formatDuration(v)}
              series={[
                { name: 'Median', color: 'blue.6' },
                { name: 'P90', label: '90th percentile', color: 'red.6' },
              ]}
            />
          )}
        </ChartCard>
        <ChartCard title="Customer satisfaction" loading={loading} empty={!has.csat} emptyText="No ratings in this period yet.">
          {data && (
            <BarChart
              {...common}
              data={csatSeries(data)}
              barProps={{ isAnimationActive: false }}
              yAxisProps={{ domain: [0, 5] }}
              valueFormatter={(v) => `${v} / 5`}
              series={[{ name: 'CSAT', label: 'Average rating', color: 'yellow.6' }]}
            />
          )}
        </ChartCard>
      </SimpleGrid>

      <Paper withBorder p="md" aria-label="Top unanswered questions">
        <Title order={5} mb={4}>
          Top unanswered questions
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Questions your bot could not answer from its knowledge: add them in Training.
        </Text>
        {loading ? (
          <Skeleton h={120} />
        ) : !data || data.topUnanswered.length === 0 ? (
          <Text c="dimmed" size="sm" data-testid="unanswered-empty">
            No unanswered questions in this period.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={360}>
            <Table striped data-testid="unanswered-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Question</Table.Th>
                  <Table.Th ta="right">Asked</Table.Th>
                  <Table.Th>Last asked</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.topUnanswered.map((q) => (
                  <Table.Tr key={q.question}>
                    <Table.Td>{q.question}</Table.Td>
                    <Table.Td ta="right">{q.count}</Table.Td>
                    <Table.Td>{new Date(q.lastAskedAt).toLocaleString()}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
    </Stack>
  );
}
