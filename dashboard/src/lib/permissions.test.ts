import { describe, expect, it } from 'vitest';
import { can, parseRole, type BotAction, type BotRole } from './permissions';

// The server's table (store/src/roles.rs, spec 1 §6), written out row by row.
const expected: Record<BotRole, BotAction[]> = {
  owner: ['view', 'editBot', 'deleteBot', 'manageTeam', 'handleSupport', 'editMessage', 'markSession'],
  admin: ['view', 'editBot', 'manageTeam', 'handleSupport', 'editMessage', 'markSession'],
  editor: ['view', 'editBot', 'editMessage', 'markSession'],
  viewer: ['view'],
  agent: ['view', 'handleSupport', 'editMessage', 'markSession'],
};
const actions: BotAction[] = ['view', 'editBot', 'deleteBot', 'manageTeam', 'handleSupport', 'editMessage', 'markSession'];

describe('can(role, action)', () => {
  for (const [role, allowed] of Object.entries(expected)) {
    it(`${role} may do exactly ${allowed.join(', ')}`, () => {
      expect(actions.filter((a) => can(role, a))).toEqual(allowed);
    });
  }

  it('a viewer edits nothing and an agent handles support but does not edit the bot', () => {
    expect(can('viewer', 'editBot')).toBe(false);
    expect(can('viewer', 'handleSupport')).toBe(false);
    expect(can('agent', 'editBot')).toBe(false);
    expect(can('agent', 'handleSupport')).toBe(true);
    expect(can('editor', 'handleSupport')).toBe(false);
  });

  it('treats a missing or unknown role as the least one (viewer)', () => {
    expect(parseRole(undefined)).toBe('viewer');
    expect(parseRole('superuser')).toBe('viewer');
    expect(can(undefined, 'editBot')).toBe(false);
    expect(can(null, 'view')).toBe(true);
  });
});
