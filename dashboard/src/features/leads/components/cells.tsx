// The Leads table's cells, as spec 1 "Leads page" draws them.
import { Anchor, Badge, Group, Progress, Stack, Text } from '@mantine/core';
import { IconDeviceMobile, IconMessageCircle, IconWorld } from '@tabler/icons-react';
import type { Lead } from '../api/leads';
import { capitalise, capturedAt, hasContact, scoreColour, scoreOf, sessionLabel, sourceKind, sourceLabel } from '../stores/format';

const PRIORITY_COLOUR: Record<string, string> = { low: 'gray', medium: 'blue', high: 'orange', urgent: 'red' };

export function SourceIcon({ source, size = 16 }: { source: string; size?: number }) {
  const kind = sourceKind(source);
  if (kind === 'website') return <IconMessageCircle size={size} aria-label="Website chat" />;
  if (kind === 'mobile') return <IconDeviceMobile size={size} aria-label="Mobile app" />;
  return <IconWorld size={size} aria-label="Other source" />;
}

export function LeadCell({ lead }: { lead: Lead }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <SourceIcon source={lead.source} />
      <Stack gap={0} style={{ minWidth: 0 }}>
        {hasContact(lead) ? (
          <>
            {lead.name && (
              <Text fw={600} size="sm" data-testid="lead-name">
                {lead.name}
              </Text>
            )}
            {lead.email && (
              <Anchor href={`mailto:${lead.email}`} size="sm">
                {lead.email}
              </Anchor>
            )}
          </>
        ) : (
          <Text size="sm" fs="italic" c="dimmed" data-testid="lead-name">
            No contact info
          </Text>
        )}
        {lead.phone && (
          <Anchor href={`tel:${lead.phone.replace(/[^\d+]/g, '')}`} size="sm">
            {lead.phone}
          </Anchor>
        )}
        {lead.company && (
          <Text size="xs" c="dimmed">
            {lead.company}
          </Text>
        )}
      </Stack>
    </Group>
  );
}

export function ScoreCell({ lead }: { lead: Pick<Lead, 'leadScore'> }) {
  const score = scoreOf(lead);
  const colour = scoreColour(score);
  return (
    <Stack gap={4} w={80}>
      <Badge color={colour} variant="light" data-testid="lead-score" data-colour={colour}>
        {score}
      </Badge>
      <Progress value={score} color={colour} size="sm" aria-label={`Score ${score} of 100`} />
    </Stack>
  );
}

export function PriorityCell({ priority }: { priority: string }) {
  return (
    <Badge color={PRIORITY_COLOUR[priority] ?? 'gray'} variant="light" tt="none" data-testid="lead-priority">
      {capitalise(priority)}
    </Badge>
  );
}

export function SourceCell({ source }: { source: string }) {
  return (
    <Group gap={6} wrap="nowrap">
      <SourceIcon source={source} size={14} />
      <Text size="sm" data-testid="lead-source">
        {sourceLabel(source)}
      </Text>
    </Group>
  );
}

export function CapturedCell({ lead }: { lead: Lead }) {
  const session = sessionLabel(lead);
  return (
    <Stack gap={0}>
      <Text size="sm" data-testid="lead-captured">
        {capturedAt(lead.capturedAt)}
      </Text>
      {session && (
        <Text size="xs" c="dimmed">
          {session}
        </Text>
      )}
      {lead.assignedToName && (
        <Text size="xs" c="dimmed">
          Assigned to {lead.assignedToName}
        </Text>
      )}
    </Stack>
  );
}
