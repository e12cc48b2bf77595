// Pending team invitations addressed to the signed-in user.
import { proxy } from 'valtio';
import { onSignOut } from '@/lib/sign-out';
import { invitationsApi, type Invitation } from '../api/invitations';

export const invitations = proxy({ list: [] as Invitation[], loading: false });

export async function loadInvitations(): Promise<void> {
  invitations.loading = true;
  try {
    invitations.list = (await invitationsApi.list()).invitations;
  } catch {
    invitations.list = [];
  } finally {
    invitations.loading = false;
  }
}

export function removeInvitation(id: string): void {
  invitations.list = invitations.list.filter((i) => i._id !== id);
}

/** Accepts or declines; the invitation leaves the list either way. Throws on failure. */
export async function respondToInvitation(id: string, accept: boolean): Promise<void> {
  await invitationsApi.respond(id, accept);
  removeInvitation(id);
}

onSignOut(() => {
  invitations.list = [];
});
