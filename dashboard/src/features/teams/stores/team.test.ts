import { beforeEach, describe, expect, it } from 'vitest';
import { mockFetch } from '../../../../test-utils/fetch';
import { member, teamOf } from '../../../../test-utils/team';
import {
  EMAIL_INVALID,
  EMAIL_REQUIRED,
  changeRole,
  dropMember,
  filterMembers,
  inviteEmailError,
  loadTeam,
  removeMember,
  roleColor,
  team,
  teamFlags,
  upsertMember,
} from './team';
import { isComplete, parseInvitationLink } from './acceptance';

describe('team rules', () => {
  it('validates the invite email with the spec messages', () => {
    expect(inviteEmailError('  ')).toBe(EMAIL_REQUIRED);
    expect(inviteEmailError('grace')).toBe(EMAIL_INVALID);
    expect(inviteEmailError('grace@example')).toBe(EMAIL_INVALID);
    expect(inviteEmailError(' grace@example.com ')).toBeNull();
  });

  it('colours roles as spec 1 §6 says: admin red, editor blue, viewer gray', () => {
    expect([roleColor('admin'), roleColor('editor'), roleColor('viewer')]).toEqual(['red', 'blue', 'gray']);
  });

  it('searches name, email and invited address, case-insensitive', () => {
    const list = [member('a', { name: 'Grace Hopper' }), member('b', { name: '', email: '', invitedEmail: 'Linus@Example.com' })];
    expect(filterMembers(list, 'hopper').map((m) => m._id)).toEqual(['a']);
    expect(filterMembers(list, 'linus@').map((m) => m._id)).toEqual(['b']);
    expect(filterMembers(list, '  ')).toHaveLength(2);
  });

  it('shows invite and manage actions unless the server says no', () => {
    expect(teamFlags({})).toEqual({ canInvite: true, canRemoveMembers: true });
    expect(teamFlags({ canInvite: false, canRemoveMembers: false })).toEqual({ canInvite: false, canRemoveMembers: false });
  });

  it('applies member changes by id', () => {
    const list = [member('a'), member('b')];
    expect(upsertMember(list, member('b', { role: 'viewer' })).map((m) => m.role)).toEqual(['editor', 'viewer']);
    expect(upsertMember(list, member('c')).map((m) => m._id)).toEqual(['a', 'b', 'c']);
    expect(dropMember(list, 'a').map((m) => m._id)).toEqual(['b']);
  });

  it('reads an acceptance link from the query', () => {
    const link = parseInvitationLink(new URLSearchParams('action=accept&botId=b1&memberId=m1&token=t'));
    expect(link).toEqual({ botId: 'b1', memberId: 'm1', token: 't' });
    expect(isComplete(link!)).toBe(true);
    expect(parseInvitationLink(new URLSearchParams('botId=b1'))).toBeNull();
    expect(isComplete(parseInvitationLink(new URLSearchParams('action=accept&botId=b1'))!)).toBe(false);
  });
});

describe('team store', () => {
  beforeEach(() => Object.assign(team, { botId: null, team: null, loading: false, loadError: null, search: '' }));

  it('changes a role only when it changed, and keeps the server row', async () => {
    const calls = mockFetch({
      'GET /api/bots/b1/team': { body: teamOf([member('m1')]) },
      'PUT /api/bots/b1/team/m1': { body: { member: member('m1', { role: 'viewer', roleLabel: 'Viewer' }), message: 'ok' } },
    });
    await loadTeam('b1');
    expect(await changeRole('b1', member('m1'), 'editor')).toBe(true);
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
    expect(await changeRole('b1', member('m1'), 'viewer')).toBe(true);
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ role: 'viewer' });
    expect(team.team?.members[0].role).toBe('viewer');
  });

  it('keeps the member when the server refuses the removal', async () => {
    mockFetch({
      'GET /api/bots/b1/team': { body: teamOf([member('m1')]) },
      'DELETE /api/bots/b1/team/m1': { status: 403, body: { error: { code: 'forbidden', message: 'Your role does not allow managing the team' } } },
    });
    await loadTeam('b1');
    expect(await removeMember('b1', 'm1')).toBe(false);
    expect(team.team?.members.map((m) => m._id)).toEqual(['m1']);
  });

  it('a failed load leaves no stale team and says why', async () => {
    mockFetch({ 'GET /api/bots/b2/team': { status: 404, body: { error: { code: 'not_found', message: 'Bot not found' } } } });
    await loadTeam('b2');
    expect(team.team).toBeNull();
    expect(team.loadError).toBe('Bot not found');
  });
});
