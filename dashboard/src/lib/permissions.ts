// What each role may do on a bot: the dashboard's copy of the server's role table
// (store/src/roles.rs, enforced by http/src/auth/access.rs and the live engine). The server stays
// the authority; this only hides or disables what it would refuse. Every screen asks `can`.

export type BotRole = 'owner' | 'admin' | 'editor' | 'viewer' | 'agent';

export type BotAction =
  /** Read the bot, its stats, sessions, sources, settings and team. */
  | 'view'
  /** Customize, training data, bot settings, the bot's name and icon. */
  | 'editBot'
  /** Delete the bot. */
  | 'deleteBot'
  /** Invite, change roles, resend, revoke, remove. */
  | 'manageTeam'
  /** Take, answer, resolve and delete support sessions. */
  | 'handleSupport'
  /** Correct a bot message in a conversation. */
  | 'editMessage'
  /** Pin and star conversations (the team's marks). */
  | 'markSession'
  /** New Lead and the Edit form. */
  | 'editLeads'
  /** A lead's status (the inline select). */
  | 'setLeadStatus'
  /** Delete a lead. */
  | 'deleteLeads';

const ROLES: readonly BotRole[] = ['owner', 'admin', 'editor', 'viewer', 'agent'];

const TABLE: Record<BotAction, readonly BotRole[]> = {
  view: ROLES,
  editBot: ['owner', 'admin', 'editor'],
  deleteBot: ['owner'],
  manageTeam: ['owner', 'admin'],
  handleSupport: ['owner', 'admin', 'agent'],
  editMessage: ['owner', 'admin', 'editor', 'agent'],
  markSession: ['owner', 'admin', 'editor', 'agent'],
  editLeads: ['owner', 'admin', 'editor'],
  setLeadStatus: ['owner', 'admin', 'editor', 'agent'],
  deleteLeads: ['owner', 'admin'],
};

/** A role as the server names it; anything else (missing, unknown) is the least: viewer. */
export function parseRole(raw: unknown): BotRole {
  return typeof raw === 'string' && (ROLES as readonly string[]).includes(raw) ? (raw as BotRole) : 'viewer';
}

/** Whether `role` (as `GET /api/bots` gives it per bot) may do `action`. */
export function can(role: unknown, action: BotAction): boolean {
  return TABLE[action].includes(parseRole(role));
}
