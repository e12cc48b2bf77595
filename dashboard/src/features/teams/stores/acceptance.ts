// Following an invitation link: /teams?action=accept&botId&memberId&token. The confirmation step
// shows the bot and who invited (GET /api/team/accept-invitation); Accept or Decline answers it.
// One proxy per link being answered, created by the component.
import { proxy } from 'valtio';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { invitationLinkApi, type InvitationLink, type InvitationPreview } from '../api/team';
import { TOAST } from './team';

/** The link's parameters, or null when the query is not an acceptance link. */
export function parseInvitationLink(params: URLSearchParams): InvitationLink | null {
  if (params.get('action') !== 'accept') return null;
  const botId = params.get('botId') ?? '';
  const memberId = params.get('memberId') ?? '';
  const token = params.get('token') ?? '';
  return { botId, memberId, token };
}

/** Whether the link has what the server needs; an incomplete one is explained, not sent. */
export function isComplete(link: InvitationLink): boolean {
  return !!(link.botId && link.memberId && link.token);
}

export const INCOMPLETE_LINK = 'This invitation link is incomplete. Open the link from the invitation email again.';

export type AcceptancePhase = 'loading' | 'ready' | 'failed' | 'accepting' | 'declining' | 'accepted' | 'declined';

export interface AcceptanceState {
  phase: AcceptancePhase;
  invitation: InvitationPreview | null;
  error: string | null;
}

export function createAcceptance(link: InvitationLink) {
  const state = proxy<AcceptanceState>({ phase: 'loading', invitation: null, error: null });

  async function load(): Promise<void> {
    if (!isComplete(link)) {
      Object.assign(state, { phase: 'failed', error: INCOMPLETE_LINK });
      return;
    }
    state.phase = 'loading';
    try {
      const { invitation } = await invitationLinkApi.preview(link);
      Object.assign(state, { phase: 'ready', invitation, error: null });
    } catch (err) {
      Object.assign(state, { phase: 'failed', error: errorMessage(err, TOAST.acceptError) });
    }
  }

  /** Accepts; returns the bot joined (for the caller to select), or null. */
  async function accept() {
    state.phase = 'accepting';
    try {
      const res = await invitationLinkApi.accept(link);
      state.phase = 'accepted';
      notify.success(TOAST.accepted);
      return res.bot;
    } catch (err) {
      const message = errorMessage(err, '');
      state.phase = 'ready';
      state.error = message || null;
      notify.error(TOAST.acceptError, message);
      return null;
    }
  }

  async function decline(): Promise<boolean> {
    state.phase = 'declining';
    try {
      await invitationLinkApi.decline(link);
      state.phase = 'declined';
      notify.success(TOAST.declined);
      return true;
    } catch (err) {
      const message = errorMessage(err, '');
      state.phase = 'ready';
      state.error = message || null;
      notify.error(TOAST.declineFailed, message);
      return false;
    }
  }

  return { state, load, accept, decline };
}
