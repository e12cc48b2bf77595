import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test-utils/render';
import { bot, me, mockFetch } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';
import { bots } from '@/features/bots/stores/bots';

const invitation = {
  _id: 'inv1',
  botId: 'b9',
  botName: 'Shared Bot',
  botIcon: null,
  role: 'editor',
  invitedBy: { name: 'Grace', email: 'grace@example.com' },
  invitedAt: '2024-05-01T00:00:00Z',
};

describe('My Bots', () => {
  let list: ReturnType<typeof bot>[];
  let calls: ReturnType<typeof mockFetch>;

  beforeEach(() => {
    signOut();
    localStorage.setItem('authToken', 'tok');
    Object.assign(session, { token: 'tok', user: me.user, platform: me.platform, loggedIn: true });
    list = [
      bot('b1', 'Helper', { description: 'Answers orders' }),
      bot('b2', null, { status: 'inactive' }),
    ];
    let invitations = [invitation];
    calls = mockFetch({
      'GET /api/bots': () => ({ body: { bots: list } }),
      'GET /api/invitations': () => ({ body: { invitations } }),
      'POST /api/invitations/inv1/respond': () => {
        invitations = [];
        list = [...list, bot('b9', 'Shared Bot')];
        return { body: {} };
      },
      'DELETE /api/bots/b1': { status: 204 },
    });
  });

  it('lists bots with their fallbacks and the counts', async () => {
    renderApp('/dashboard');
    expect(await screen.findByText('2 bots · 1 pending invitation')).toBeInTheDocument();
    const cards = await screen.findAllByTestId('bot-card');
    expect(cards).toHaveLength(2);
    expect(within(cards[0]).getByText('Helper')).toBeInTheDocument();
    // The green dot (the switch beside it is labelled too).
    expect(within(cards[0]).getByLabelText('Active', { selector: 'div' })).toBeInTheDocument();
    expect(within(cards[1]).getByText('Untitled Assistant')).toBeInTheDocument();
    expect(within(cards[1]).getByText('No description provided.')).toBeInTheDocument();
    expect(within(cards[1]).queryByLabelText('Active', { selector: 'div' })).toBeNull();
  });

  it("shows 'No bots found' for an empty search, and 'Clear search' restores the list", async () => {
    renderApp('/dashboard');
    await screen.findAllByTestId('bot-card');
    const u = userEvent.setup();
    await u.type(screen.getByPlaceholderText('Search assistants...'), 'zzz');
    expect(screen.getByText('No bots found')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Clear search' }));
    expect(screen.getAllByTestId('bot-card')).toHaveLength(2);
  });

  it('accepting an invitation reloads the bots', async () => {
    renderApp('/dashboard');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Accept' }));
    await waitFor(() => expect(screen.getAllByTestId('bot-card')).toHaveLength(3));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ accept: true });
    expect(screen.getByText('3 bots · 0 pending invitations')).toBeInTheDocument();
  });

  it('asks before deleting a bot, then removes it', async () => {
    renderApp('/dashboard');
    const u = userEvent.setup();
    const card = (await screen.findAllByTestId('bot-card'))[0];
    await u.click(within(card).getByRole('button', { name: 'Actions for Helper' }));
    await u.click(await screen.findByRole('menuitem', { name: 'Delete Bot' }));
    expect(await screen.findByText('Are you sure you want to delete "Helper"?')).toBeInTheDocument();
    list = list.filter((b) => b._id !== 'b1');
    await u.click(screen.getByRole('button', { name: 'Delete Bot' }));
    await waitFor(() => expect(screen.getAllByTestId('bot-card')).toHaveLength(1));
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/bots/b1')).toBe(true);
  });

  it('switches a bot off only after the offline warning, and back on', async () => {
    const puts: unknown[] = [];
    mockFetch({
      'GET /api/bots': () => ({ body: { bots: list } }),
      'GET /api/invitations': () => ({ body: { invitations: [] } }),
      'PUT /api/bots/b1': (c) => {
        puts.push(c.body);
        list = list.map((b) => (b._id === 'b1' ? { ...b, ...(c.body as object) } : b));
        return { body: { bot: list[0] } };
      },
    });
    const { router } = renderApp('/dashboard');
    const u = userEvent.setup();
    const card = (await screen.findAllByTestId('bot-card'))[0];
    const toggle = within(card).getByRole('switch', { name: 'Helper is active' });
    await u.click(toggle);
    expect(await screen.findByText(/Visitors will see the offline state/)).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(puts).toEqual([]);
    expect(toggle).toBeChecked();

    await u.click(toggle);
    await u.click(await screen.findByRole('button', { name: 'Deactivate' }));
    await waitFor(() => expect(puts).toEqual([{ status: 'inactive' }]));
    const off = await within(card).findByRole('switch', { name: 'Helper is inactive' });
    expect(off).not.toBeChecked();
    expect(within(card).queryByLabelText('Active', { selector: 'div' })).toBeNull();
    // The switch's clicks do not open the bot.
    expect(router.state.location.pathname).toBe('/dashboard');

    await u.click(off);
    expect(await screen.findByText(/Visitors can chat with the assistant again/)).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Activate' }));
    await waitFor(() => expect(puts).toEqual([{ status: 'inactive' }, { status: 'active' }]));
    expect(await within(card).findByRole('switch', { name: 'Helper is active' })).toBeChecked();
  });

  it("a viewer sees the bot's status but cannot switch it", async () => {
    list = [bot('b1', 'Helper', { role: 'viewer' })];
    renderApp('/dashboard');
    const card = (await screen.findAllByTestId('bot-card'))[0];
    expect(within(card).getByRole('switch', { name: 'Helper is active' })).toBeDisabled();
  });

  it('Edit makes the bot active and opens /preview', async () => {
    const { router } = renderApp('/dashboard');
    const u = userEvent.setup();
    const card = (await screen.findAllByTestId('bot-card'))[0];
    await u.click(within(card).getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/preview'));
    expect(bots.activeBotId).toBe('b1');
  });
});
