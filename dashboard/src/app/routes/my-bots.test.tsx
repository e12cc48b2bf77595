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
    expect(within(cards[0]).getByLabelText('Active')).toBeInTheDocument();
    expect(within(cards[1]).getByText('Untitled Assistant')).toBeInTheDocument();
    expect(within(cards[1]).getByText('No description provided.')).toBeInTheDocument();
    expect(within(cards[1]).queryByLabelText('Active')).toBeNull();
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

  it('Edit makes the bot active and opens /preview', async () => {
    const { router } = renderApp('/dashboard');
    const u = userEvent.setup();
    const card = (await screen.findAllByTestId('bot-card'))[0];
    await u.click(within(card).getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/preview'));
    expect(bots.activeBotId).toBe('b1');
  });
});
