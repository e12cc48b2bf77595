// The five cards: Total Leads, New, Contacted, Qualified, Converted.
import { Card, SimpleGrid, Text } from '@mantine/core';
import type { LeadStats } from '../api/leads';

const CARDS: [label: string, key: keyof Pick<LeadStats, 'total' | 'new' | 'contacted' | 'qualified' | 'converted'>, colour: string][] = [
  ['Total Leads', 'total', 'gray'],
  ['New', 'new', 'blue'],
  ['Contacted', 'contacted', 'yellow'],
  ['Qualified', 'qualified', 'violet'],
  ['Converted', 'converted', 'green'],
];

export function LeadStatCards({ stats }: { stats: LeadStats | null }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm" mb="md">
      {CARDS.map(([label, key, colour]) => (
        <Card key={key} withBorder padding="sm" data-testid={`lead-card-${key}`}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {label}
          </Text>
          <Text size="xl" fw={700} c={`${colour}.7`}>
            {stats ? stats[key] : 0}
          </Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}
