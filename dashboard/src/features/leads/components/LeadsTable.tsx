// The leads table: select-all, the seven columns, the inline status select and the row actions
// (Edit lead, View conversation, Delete lead), each offered only to the roles that may.
import { ActionIcon, Checkbox, Group, NativeSelect, Table, Tooltip } from '@mantine/core';
import { IconExternalLink, IconPencil, IconTrash } from '@tabler/icons-react';
import { can } from '@/lib/permissions';
import type { Lead } from '../api/leads';
import { STATUS_OPTIONS } from '../stores/format';
import { CapturedCell, LeadCell, PriorityCell, ScoreCell, SourceCell } from './cells';

interface Props {
  rows: readonly Lead[];
  selected: readonly string[];
  /** The caller's role on each bot, by bot id. */
  roles: Record<string, string | undefined>;
  onToggle: (id: string) => void;
  onToggleAll: () => void;
  onStatus: (id: string, status: string) => void;
  onEdit: (lead: Lead) => void;
  onDelete: (lead: Lead) => void;
}

/**
 * The conversation, in a new tab: spec 1's link, /chat?id={botId}&session={sessionId}. The chat
 * page sends a browser signed in here on to the bot's conversation screen (/botchat), which checks
 * the member's role (widget/src/chat/teamLink.ts).
 */
export function conversationUrl(lead: Pick<Lead, 'botId' | 'sessionId'>): string | null {
  if (!lead.sessionId) return null;
  return `/chat?id=${encodeURIComponent(lead.botId)}&session=${encodeURIComponent(lead.sessionId)}`;
}

const who = (l: Lead) => l.name || l.email || 'lead';

export function LeadsTable({ rows, selected, roles, onToggle, onToggleAll, onStatus, onEdit, onDelete }: Props) {
  const allSelected = rows.length > 0 && rows.every((r) => selected.includes(r._id));
  const someSelected = rows.some((r) => selected.includes(r._id));
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table verticalSpacing="sm" highlightOnHover data-testid="leads-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <Checkbox aria-label="Select all leads" checked={allSelected} indeterminate={someSelected && !allSelected} onChange={onToggleAll} />
            </Table.Th>
            <Table.Th>Lead</Table.Th>
            <Table.Th>Score</Table.Th>
            <Table.Th>Priority</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Source</Table.Th>
            <Table.Th>Captured</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((lead) => {
            const role = roles[lead.botId];
            const url = conversationUrl(lead);
            return (
              <Table.Tr key={lead._id} data-testid="lead-row" data-lead-id={lead._id}>
                <Table.Td>
                  <Checkbox aria-label={`Select ${who(lead)}`} checked={selected.includes(lead._id)} onChange={() => onToggle(lead._id)} />
                </Table.Td>
                <Table.Td>
                  <LeadCell lead={lead} />
                </Table.Td>
                <Table.Td>
                  <ScoreCell lead={lead} />
                </Table.Td>
                <Table.Td>
                  <PriorityCell priority={lead.priority} />
                </Table.Td>
                <Table.Td>
                  <NativeSelect
                    size="xs"
                    aria-label={`Status of ${who(lead)}`}
                    data={STATUS_OPTIONS}
                    value={lead.status}
                    disabled={!can(role, 'setLeadStatus')}
                    onChange={(e) => onStatus(lead._id, e.currentTarget.value)}
                    w={130}
                  />
                </Table.Td>
                <Table.Td>
                  <SourceCell source={lead.source} />
                </Table.Td>
                <Table.Td>
                  <CapturedCell lead={lead} />
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    {can(role, 'editLeads') && (
                      <Tooltip label="Edit lead">
                        <ActionIcon variant="subtle" aria-label={`Edit lead ${who(lead)}`} onClick={() => onEdit(lead)}>
                          <IconPencil size={16} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                    {url && (
                      <Tooltip label="View conversation">
                        <ActionIcon
                          variant="subtle"
                          component="a"
                          href={url}
                          target="_blank"
                          rel="noopener"
                          aria-label={`View conversation of ${who(lead)}`}
                        >
                          <IconExternalLink size={16} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                    {can(role, 'deleteLeads') && (
                      <Tooltip label="Delete lead">
                        <ActionIcon variant="subtle" color="red" aria-label={`Delete lead ${who(lead)}`} onClick={() => onDelete(lead)}>
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
