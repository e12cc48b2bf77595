import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../../test-utils/render';
import { bot, me, mockFetch } from '../../../../test-utils/fetch';
import { teamOf } from '../../../../test-utils/team';
import { session, signOut } from '@/features/auth/stores/session';
import { bots } from '@/features/bots/stores/bots';
import { TOAST } from '../stores/team';

const preview = {
  _id: 'm1',
  botId: 'b9',
  botName: 'Shared Bot',
  botIcon: null,
  role: 'agent',
  invitedBy: { name: 'Grace', email: 'grace@example.com' },
  invitedAt: '2026-11-20T00:00:00Z',
  expiresAt: '2026-11-27T00:00:00Z',
  email: 'ada@example.com',
};
const LINK = '/teams?action=accept&botId=b9&memberId=m1&token=secret-token';

function signedIn(verified = true) {
  signOut();
  localStorage.setItem('authToken', 'tok');
  Object.assign(session, { token: 'tok', user: { ...me.user, emailVerified: verified }, platform: me.platform, loggedIn: true });
}

describe('invitation link', () => {
  beforeEach(() => signedIn());

  it('names the bot and the inviter, accepts, makes the bot active and shows its team', async () => {
    let joined = false;
    const calls = mockFetch({
      'GET /api/team/accept-invitation': { body: { invitation: preview } },
      'POST /api/team/accept-invitation': () => {
        joined = true;
        return { body: { ok: true, message: 'Invitation accepted successfully!', bot: bot('b9', 'Shared Bot', { role: 'agent' }), member: { _id: 'm1', role: 'agent', status: 'active' } } };
      },
      'GET /api/bots': () => ({ body: { bots: joined ? [bot('b9', 'Shared Bot', { role: 'agent' })] : [] } }),
      'GET /api/invitations': { body: { invitations: [] } },
      'GET /api/bots/b9/team': { body: teamOf([], { botId: 'b9', role: 'agent', canInvite: false, canRemoveMembers: false }) },
    });
    const { router } = renderApp(LINK);
    expect(await screen.findByText(/invited you to join/)).toHaveTextContent('Grace invited you to join Shared Bot as Support Agent');
    expect(calls.find((c) => c.path === '/api/team/accept-invitation')).toBeDefined();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Accept Invitation' }));
    await screen.findByText(TOAST.accepted);
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ botId: 'b9', memberId: 'm1', token: 'secret-token' });
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/teams');
    expect(bots.activeBotId).toBe('b9');
    await screen.findByText('Team Management');
  });

  it('shows the server refusal (unverified account) as Error accepting invitation', async () => {
    signedIn(false);
    mockFetch({
      'GET /api/team/accept-invitation': { body: { invitation: preview } },
      'POST /api/team/accept-invitation': {
        status: 403,
        body: { error: { code: 'email_unverified', message: 'Verify your email address before accepting invitations.' } },
      },
      'GET /api/bots': { body: { bots: [] } },
      'GET /api/invitations': { body: { invitations: [] } },
    });
    renderApp(LINK);
    await screen.findByText('Verify your email first');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Accept Invitation' }));
    await screen.findByText(TOAST.acceptError);
    expect(screen.getAllByText('Verify your email address before accepting invitations.').length).toBeGreaterThan(0);
  });

  it('declines with Invitation declined and goes to My Bots', async () => {
    mockFetch({
      'GET /api/team/accept-invitation': { body: { invitation: preview } },
      'POST /api/team/decline-invitation': { body: { ok: true, message: 'Invitation declined' } },
      'GET /api/bots': { body: { bots: [] } },
      'GET /api/invitations': { body: { invitations: [] } },
    });
    const { router } = renderApp(LINK);
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Decline' }));
    await screen.findByText(TOAST.declined);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('an expired link says whom to ask', async () => {
    mockFetch({
      'GET /api/team/accept-invitation': {
        status: 410,
        body: { error: { code: 'invitation_expired', message: 'This invitation has expired. Ask Grace to send a new one.' } },
      },
      'GET /api/bots': { body: { bots: [] } },
      'GET /api/invitations': { body: { invitations: [] } },
    });
    renderApp(LINK);
    await screen.findByText('This invitation has expired. Ask Grace to send a new one.');
    expect(screen.queryByRole('button', { name: 'Accept Invitation' })).toBeNull();
  });
});
