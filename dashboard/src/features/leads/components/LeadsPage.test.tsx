import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { mockFetch, type Call } from '../../../../test-utils/fetch';
import { runSignOutResets } from '@/lib/sign-out';
import { bots } from '@/features/bots/stores/bots';
import { lead } from '../stores/fixtures';
import { LeadsPage } from './LeadsPage';

const stats = {
  total: 3, new: 1, contacted: 1, qualified: 0, converted: 1, lost: 0, withEmail: 2, withName: 2, withPhone: 1,
  conversion: { thisMonth: { captured: 3, converted: 1, rate: 33.3 }, lastMonth: { captured: 0, converted: 0, rate: null } },
  sources: [{ source: 'website_chat', count: 2, percent: 66.7 }, { source: 'manual', count: 1, percent: 33.3 }],
};

const ROWS = [
  lead('a', { name: 'Ann', email: 'ann@x.example', phone: '+1 555 0100', company: 'Acme', leadScore: 85, priority: 'high', sessionId: 'sess-00abcdef', sessionTitle: null, assignedToName: 'Grace' }),
  lead('b', { name: null, email: null, leadScore: null, source: 'manual', priority: 'urgent' }),
];

function server(rows = ROWS, total = rows.length) {
  return mockFetch({
    'GET /api/leads': (c: Call) => {
      void c;
      return { body: { leads: rows, total, page: 1, limit: 50 } };
    },
    'GET /api/leads/stats': { body: { stats } },
    'DELETE /api/leads/a': { body: { ok: true } },
  });
}

describe('Leads page', () => {
  beforeEach(() => {
    runSignOutResets();
    bots.bots = [{ _id: 'b1', id: 'b1', name: 'Shop', description: null, icon: null, status: 'active', lastActive: null, role: 'owner' }];
  });

  it('shows the count, the five cards, the cells and the insights', async () => {
    server();
    render(<LeadsPage />);
    expect(screen.getByTestId('leads-count')).toHaveTextContent('Loading...');
    await waitFor(() => expect(screen.getByTestId('leads-count')).toHaveTextContent('3 leads captured'));
    for (const [key, n] of [['total', '3'], ['new', '1'], ['contacted', '1'], ['qualified', '0'], ['converted', '1']]) {
      expect(screen.getByTestId(`lead-card-${key}`)).toHaveTextContent(n);
    }
    const [ann, anon] = screen.getAllByTestId('lead-row');
    expect(within(ann).getByRole('link', { name: 'ann@x.example' })).toHaveAttribute('href', 'mailto:ann@x.example');
    expect(within(ann).getByRole('link', { name: '+1 555 0100' })).toHaveAttribute('href', 'tel:+15550100');
    expect(within(ann).getByTestId('lead-score')).toHaveAttribute('data-colour', 'green');
    expect(within(ann).getByTestId('lead-priority')).toHaveTextContent('High');
    expect(within(ann).getByTestId('lead-source')).toHaveTextContent('website chat');
    expect(within(ann).getByText('Session abcdef')).toBeInTheDocument();
    expect(within(ann).getByText('Assigned to Grace')).toBeInTheDocument();
    expect(within(ann).getByRole('link', { name: 'View conversation of Ann' })).toHaveAttribute('href', '/chat?id=b1&session=sess-00abcdef');
    expect(within(anon).getByText('No contact info')).toBeInTheDocument();
    expect(within(anon).getByTestId('lead-score')).toHaveTextContent('50');
    expect(within(anon).getByTestId('lead-score')).toHaveAttribute('data-colour', 'yellow');
    const insights = screen.getByTestId('lead-insights');
    expect(insights).toHaveTextContent('With Email2');
    expect(insights).toHaveTextContent('This Month33.3%');
    expect(insights).toHaveTextContent('Last Month-');
    expect(insights).toHaveTextContent('Website Chat66.7%');
    expect(insights).toHaveTextContent('Mobile App0%');
  });

  it('selects rows and shows the selection bar', async () => {
    server();
    render(<LeadsPage />);
    await screen.findAllByTestId('lead-row');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all leads' }));
    expect(screen.getByTestId('selection-bar')).toHaveTextContent('2 lead(s) selected');
    await userEvent.click(screen.getByRole('button', { name: 'Clear Selection' }));
    expect(screen.queryByTestId('selection-bar')).toBeNull();
  });

  it('offers every filtered lead past the page, and a row unticked ends that', async () => {
    server(ROWS, 120);
    render(<LeadsPage />);
    await screen.findAllByTestId('lead-row');
    expect(screen.queryByRole('button', { name: 'Select all 120 leads' })).toBeNull();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all leads' }));
    const bar = screen.getByTestId('selection-bar');
    expect(bar).toHaveTextContent('2 lead(s) selected');
    await userEvent.click(within(bar).getByRole('button', { name: 'Select all 120 leads' }));
    expect(bar).toHaveTextContent('120 lead(s) selected');
    expect(within(bar).queryByRole('button', { name: 'Select all 120 leads' })).toBeNull();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select Ann' }));
    expect(bar).toHaveTextContent('1 lead(s) selected');
    expect(screen.getByRole('checkbox', { name: 'Select Ann' })).not.toBeChecked();
  });

  it('asks before deleting', async () => {
    const calls = server();
    render(<LeadsPage />);
    await screen.findAllByTestId('lead-row');
    await userEvent.click(screen.getByRole('button', { name: 'Delete lead Ann' }));
    expect(await screen.findByText('Are you sure you want to delete this lead?')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/leads/a')).toBe(true));
  });

  it('has both empty states, and Clear all filters', async () => {
    server([]);
    render(<LeadsPage />);
    expect(await screen.findByText('No leads yet')).toBeInTheDocument();
    expect(screen.getByText('Leads will appear here when visitors provide their contact information')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'lost');
    expect(await screen.findByText('No leads found')).toBeInTheDocument();
    expect(screen.getByText('Try adjusting your search or filters')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Clear all filters' }));
    expect(await screen.findByText('No leads yet')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('all');
  });

  it("refuses to create without a bot: 'Please select a bot'", async () => {
    const calls = server();
    render(<LeadsPage />);
    await screen.findAllByTestId('lead-row');
    await userEvent.click(screen.getByRole('button', { name: 'New Lead' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Create Lead' }));
    expect(await screen.findByText('Please select a bot')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('hides edit and delete from a viewer, and disables the status', async () => {
    bots.bots = [{ ...bots.bots[0], role: 'viewer' }];
    server();
    render(<LeadsPage />);
    await screen.findAllByTestId('lead-row');
    expect(screen.queryByRole('button', { name: 'New Lead' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Edit lead Ann' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete lead Ann' })).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Status of Ann' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Export' })).toBeEnabled();
  });
});
