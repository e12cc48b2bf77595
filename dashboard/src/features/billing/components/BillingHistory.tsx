// Billing History: the newest 3 payments, 'View all' for the whole list page by page, and
// 'No billing history available' when there is none.
import { Badge, Button, Card, Group, Modal, Pagination, Stack, Table, Text, Title } from '@mantine/core';
import type { Payment, PaymentsPage } from '../api/billing';
import { dateText, money, paymentColor } from '../stores/format';
import { HISTORY_PAGE_SIZE } from '../stores/billing';

function Row({ p }: { p: Payment }) {
  return (
    <Table.Tr data-testid="payment-row">
      <Table.Td>{p.description}</Table.Td>
      <Table.Td>{dateText(p.paidAt)}</Table.Td>
      <Table.Td>{money(p.amountCents, p.currency)}</Table.Td>
      <Table.Td>
        <Badge color={paymentColor(p.status)} variant="light" data-colour={paymentColor(p.status)}>
          {p.status}
        </Badge>
      </Table.Td>
    </Table.Tr>
  );
}

function Payments({ payments }: { payments: readonly Payment[] }) {
  return (
    <Table.ScrollContainer minWidth={420}>
      <Table verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Description</Table.Th>
            <Table.Th>Date</Table.Th>
            <Table.Th>Amount</Table.Th>
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {payments.map((p) => (
            <Row key={p._id} p={p} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

interface Props {
  recent: readonly Payment[];
  all: PaymentsPage | null;
  loadingAll: boolean;
  onViewAll: (page: number) => void;
  onClose: () => void;
}

export function BillingHistory({ recent, all, loadingAll, onViewAll, onClose }: Props) {
  return (
    <Card withBorder padding="lg" data-testid="billing-history">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Billing History</Title>
        {recent.length > 0 && (
          <Button variant="subtle" size="xs" onClick={() => onViewAll(1)} loading={loadingAll && !all}>
            View all
          </Button>
        )}
      </Group>
      {recent.length === 0 ? (
        <Text c="dimmed" size="sm">
          No billing history available
        </Text>
      ) : (
        <Payments payments={recent} />
      )}
      <Modal opened={all !== null} onClose={onClose} title="Billing History" size="lg">
        {all && (
          <Stack>
            <Payments payments={all.payments} />
            {all.total > HISTORY_PAGE_SIZE && (
              <Pagination
                total={Math.ceil(all.total / HISTORY_PAGE_SIZE)}
                value={all.page}
                onChange={onViewAll}
                disabled={loadingAll}
              />
            )}
          </Stack>
        )}
      </Modal>
    </Card>
  );
}
