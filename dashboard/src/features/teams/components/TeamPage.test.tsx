import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { mockFetch } from '../../../../test-utils/fetch';
import { member, teamOf } from '../../../../test-utils/team';
import { TOAST, team } from '../stores/team';
import { TeamPage } from './TeamPage';

const owner = member('owner', { name: 'Ada', role: 'owner', roleLabel: 'Owner', isOwner: true, canEdit: false, canRemove: false, chips: ['Manage Team'] });

describe('Team Management', () => {
  beforeEach(() => Object.assign(team, { botId: null, team: null, loading: false, loadError: null, search: '' }));

  it('shows the owner badge, role colours, chips only for active members, and no actions on the owner', async () => {
    mockFetch({
      'GET /api/bots/b1/team': {
        body: teamOf([
          owner,
          member('m1', { name: 'Grace', role: 'admin', roleLabel: 'Administrator', chips: ['Manage Team', 'Edit Bot'] }),
          member('m2', { name: '', email: 'linus@example.com', invitedEmail: 'linus@example.com', userId: null, status: 'pending', role: 'viewer', roleLabel: 'Viewer', chips: ['View Only'], expiresAt: '2026-12-01T00:00:00Z' }),
        ]),
      },
    });
    render(<TeamPage botId="b1" botName="Helper" />);
    const rows = await screen.findAllByTestId('team-member');
    expect(rows).toHaveLength(3);
    expect(within(rows[0]).getByText('Owner')).toBeInTheDocument();
    expect(within(rows[0]).queryByRole('button')).toBeNull();
    expect(within(rows[1]).getByText('Administrator')).toBeInTheDocument();
    expect(within(rows[1]).getByTestId('member-chips')).toBeInTheDocument();
    expect(within(rows[2]).getByText('Pending')).toBeInTheDocument();
    expect(within(rows[2]).queryByTestId('member-chips')).toBeNull();
    expect(within(rows[2]).getByRole('button', { name: /Resend/ })).toBeInTheDocument();
    expect(within(rows[2]).getByRole('button', { name: 'Revoke' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Back to Dashboard/ })).toHaveAttribute('href', '/dashboard');
    expect(screen.getByRole('button', { name: 'Invite Member' })).toBeInTheDocument();
  });

  it('a viewer sees the team but no invite, edit or remove', async () => {
    mockFetch({
      'GET /api/bots/b1/team': {
        body: teamOf([owner, member('m1', { canEdit: false, canRemove: false })], { role: 'viewer', canInvite: false, canRemoveMembers: false }),
      },
    });
    render(<TeamPage botId="b1" botName="Helper" />);
    await screen.findAllByTestId('team-member');
    expect(screen.queryByRole('button', { name: 'Invite Member' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Edit / })).toBeNull();
    expect(screen.queryByRole('button', { name: /Remove / })).toBeNull();
  });

  it('with only the owner, says No team members and offers Invite First Member', async () => {
    mockFetch({ 'GET /api/bots/b1/team': { body: teamOf([owner]) } });
    render(<TeamPage botId="b1" botName="Helper" />);
    await screen.findByText('No team members');
    expect(screen.getByRole('button', { name: 'Invite First Member' })).toBeInTheDocument();
  });

  it('invites: validates, sends, says Invitation sent successfully!, toasts, closes after 1.5 s', async () => {
    const calls = mockFetch({
      'GET /api/bots/b1/team': { body: teamOf([owner]) },
      'POST /api/bots/b1/team/invite': {
        status: 201,
        body: { member: member('m9', { name: '', email: 'grace@example.com', status: 'pending', role: 'agent', roleLabel: 'Support Agent' }), message: 'Invitation sent successfully!' },
      },
    });
    render(<TeamPage botId="b1" botName="Helper" />);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Invite First Member' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invite Member' });
    await u.click(within(dialog).getByRole('button', { name: 'Send Invitation' }));
    expect(within(dialog).getByText('Email address is required')).toBeInTheDocument();
    await u.type(within(dialog).getByLabelText('Email Address'), 'grace');
    expect(within(dialog).getByText('Please enter a valid email address')).toBeInTheDocument();
    await u.type(within(dialog).getByLabelText('Email Address'), '@example.com');
    await u.click(within(dialog).getByRole('textbox', { name: 'Role' }));
    await u.click(within(dialog).getByRole('option', { name: 'Support Agent' }));
    await u.click(within(dialog).getByRole('button', { name: 'Send Invitation' }));
    await within(dialog).findByText('Invitation sent successfully!');
    await screen.findByText(TOAST.invited);
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ email: 'grace@example.com', role: 'agent' });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Invite Member' })).toBeNull(), { timeout: 3000 });
    expect(screen.getAllByTestId('team-member')).toHaveLength(2);
  });

  it('shows the server message when an invitation is refused', async () => {
    mockFetch({
      'GET /api/bots/b1/team': { body: teamOf([owner]) },
      'POST /api/bots/b1/team/invite': { status: 409, body: { error: { code: 'conflict', message: 'This person is already on the team or invited' } } },
    });
    render(<TeamPage botId="b1" botName="Helper" />);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Invite Member' }));
    const dialog = await screen.findByRole('dialog', { name: 'Invite Member' });
    await u.type(within(dialog).getByLabelText('Email Address'), 'grace@example.com');
    await u.click(within(dialog).getByRole('button', { name: 'Send Invitation' }));
    expect(await within(dialog).findByText('This person is already on the team or invited')).toBeInTheDocument();
    await screen.findByText(TOAST.inviteFailed);
  });

  it('edits a role (cancel reverts) and removes a member after confirmation', async () => {
    let members = [owner, member('m1', { name: 'Grace' })];
    const calls = mockFetch({
      'GET /api/bots/b1/team': () => ({ body: teamOf(members) }),
      'PUT /api/bots/b1/team/m1': ({ body }) => ({
        body: { member: member('m1', { name: 'Grace', role: (body as { role: 'viewer' }).role, roleLabel: 'Viewer' }), message: 'ok' },
      }),
      'DELETE /api/bots/b1/team/m1': () => {
        members = [owner];
        return { body: { ok: true, revoked: false, message: 'Team member removed successfully' } };
      },
    });
    render(<TeamPage botId="b1" botName="Helper" />);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Edit Grace' }));
    const picker = screen.getByRole('textbox', { name: 'Role for Grace' });
    await u.click(picker);
    await u.click(screen.getByRole('option', { name: 'Viewer' }));
    await u.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
    expect(screen.getByText('Editor')).toBeInTheDocument();

    await u.click(screen.getByRole('button', { name: 'Edit Grace' }));
    await u.click(screen.getByRole('textbox', { name: 'Role for Grace' }));
    await u.click(screen.getByRole('option', { name: 'Viewer' }));
    await u.click(screen.getByRole('button', { name: 'Save role' }));
    await screen.findByText(TOAST.updated);
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ role: 'viewer' });
    expect(within(screen.getAllByTestId('team-member')[1]).getByTestId('member-role')).toHaveTextContent('Viewer');

    await u.click(screen.getByRole('button', { name: 'Remove Grace' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove team member' });
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await screen.findByText(TOAST.removed);
    expect(screen.getAllByTestId('team-member')).toHaveLength(1);
  });
});
