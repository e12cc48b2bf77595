// The team of the active bot (spec 1 "Team Management"): the roster as the server computes it,
// the search, and the member changes applied to local state by member id. The pure rules
// (search, role colours, invite validation) sit beside it and are tested directly.
import { proxy } from 'valtio';
import { errorMessage } from '@/lib/api';
import { foldedIncludes } from '@/lib/fold';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { teamApi, type MemberRole, type Team, type TeamMember } from '../api/team';

// Spec 1 §8, team toasts, verbatim.
export const TOAST = {
  invited: 'Team member invited successfully',
  inviteFailed: 'Failed to invite team member',
  updated: 'Team member updated successfully',
  updateFailed: 'Failed to update team member',
  removed: 'Team member removed successfully',
  removeFailed: 'Failed to remove team member',
  roleFailed: 'Failed to update member role',
  accepted: 'Invitation accepted successfully!',
  acceptError: 'Error accepting invitation',
  declined: 'Invitation declined',
  declineFailed: 'Failed to decline invitation',
} as const;

// Spec 1 §5, the Invite Member modal.
export const EMAIL_REQUIRED = 'Email address is required';
export const EMAIL_INVALID = 'Please enter a valid email address';
export const INVITE_SENT = 'Invitation sent successfully!';
export const INVITE_FAILED = 'Failed to send invitation';
/** The modal closes this long after a successful invitation. */
export const INVITE_CLOSE_MS = 1500;

/** The invite form's email error, or null when it may be sent. */
export function inviteEmailError(raw: string): string | null {
  const email = raw.trim();
  if (!email) return EMAIL_REQUIRED;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return EMAIL_INVALID;
  return null;
}

/** Spec 1 §6: red for admin, blue for editor, gray for viewer (agent and owner are ours). */
export function roleColor(role: string): string {
  switch (role) {
    case 'owner':
      return 'yellow';
    case 'admin':
      return 'red';
    case 'editor':
      return 'blue';
    case 'agent':
      return 'teal';
    default:
      return 'gray';
  }
}

/** Members whose name or email (or invited address) contains the query, in any case and with or
 * without accents. */
export function filterMembers<M extends Pick<TeamMember, 'name' | 'email' | 'invitedEmail'>>(members: readonly M[], query: string): M[] {
  if (!query.trim()) return [...members];
  return members.filter((m) => [m.name, m.email, m.invitedEmail].some((f) => foldedIncludes(f, query)));
}

/** Spec: invite, edit and remove show unless the server says no (both default to true). */
export function teamFlags(t: Pick<Team, 'canInvite' | 'canRemoveMembers'> | null) {
  return { canInvite: t?.canInvite ?? true, canRemoveMembers: t?.canRemoveMembers ?? true };
}

export function upsertMember(list: readonly TeamMember[], m: TeamMember): TeamMember[] {
  return list.some((x) => x._id === m._id) ? list.map((x) => (x._id === m._id ? m : x)) : [...list, m];
}

export function dropMember(list: readonly TeamMember[], id: string): TeamMember[] {
  return list.filter((x) => x._id !== id);
}

export interface TeamState {
  botId: string | null;
  team: Team | null;
  loading: boolean;
  loadError: string | null;
  search: string;
}

export const team = proxy<TeamState>({ botId: null, team: null, loading: false, loadError: null, search: '' });

export async function loadTeam(botId: string): Promise<void> {
  if (team.botId !== botId) Object.assign(team, { team: null, search: '' });
  team.botId = botId;
  team.loading = true;
  team.loadError = null;
  try {
    const t = await teamApi.get(botId);
    if (team.botId === botId) team.team = t;
  } catch (err) {
    if (team.botId === botId) {
      team.team = null;
      team.loadError = errorMessage(err, 'Failed to load the team');
    }
  } finally {
    if (team.botId === botId) team.loading = false;
  }
}

function apply(fn: (list: readonly TeamMember[]) => TeamMember[]) {
  if (team.team) team.team.members = fn(team.team.members);
}

export type Outcome = { ok: true; message: string } | { ok: false; message: string };

/** Invites; the modal shows the outcome inline, the toast is raised here. */
export async function inviteMember(botId: string, email: string, role: MemberRole): Promise<Outcome> {
  try {
    const { member, message } = await teamApi.invite(botId, email.trim(), role);
    if (team.botId === botId) apply((l) => upsertMember(l, member));
    notify.success(TOAST.invited, member.invitedEmail);
    return { ok: true, message: message || INVITE_SENT };
  } catch (err) {
    const message = errorMessage(err, INVITE_FAILED);
    notify.error(TOAST.inviteFailed, message);
    return { ok: false, message };
  }
}

/** Saves a new role; returns false (and the row keeps its role) when the server refuses. */
export async function changeRole(botId: string, m: Pick<TeamMember, '_id' | 'role'>, role: MemberRole): Promise<boolean> {
  if (m.role === role) return true; // spec: update only when the role changed
  try {
    const { member } = await teamApi.setRole(botId, m._id, role);
    if (team.botId === botId) apply((l) => upsertMember(l, member));
    notify.success(TOAST.updated);
    return true;
  } catch (err) {
    notify.error(TOAST.roleFailed, errorMessage(err, ''));
    return false;
  }
}

/** Removes a member or revokes a pending or expired invitation. */
export async function removeMember(botId: string, memberId: string): Promise<boolean> {
  try {
    const { message, revoked } = await teamApi.remove(botId, memberId);
    if (team.botId === botId) apply((l) => dropMember(l, memberId));
    notify.success(TOAST.removed, revoked ? message : undefined);
    return true;
  } catch (err) {
    notify.error(TOAST.removeFailed, errorMessage(err, ''));
    return false;
  }
}

/** Mails a fresh link (and 7 more days) for a pending or expired invitation. */
export async function resendInvitation(botId: string, memberId: string): Promise<boolean> {
  try {
    const { member, message } = await teamApi.resend(botId, memberId);
    if (team.botId === botId) apply((l) => upsertMember(l, member));
    notify.success(TOAST.updated, message);
    return true;
  } catch (err) {
    notify.error(TOAST.updateFailed, errorMessage(err, ''));
    return false;
  }
}

onSignOut(() => Object.assign(team, { botId: null, team: null, loading: false, loadError: null, search: '' }));
