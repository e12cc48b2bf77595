import { describe, expect, it } from 'vitest';
import { teamConversationUrl } from './teamLink';

describe('teamConversationUrl', () => {
  it('sends a signed-in team member on to the conversation screen', () => {
    expect(teamConversationUrl('?id=b1&session=s%202', true, false)).toBe('/botchat?session=s%202&botId=b1');
  });

  it('keeps the visitor chat for visitors, inside the widget, and without a session', () => {
    expect(teamConversationUrl('?id=b1&session=s2', false, false)).toBeNull();
    expect(teamConversationUrl('?id=b1&session=s2', true, true)).toBeNull();
    expect(teamConversationUrl('?id=b1', true, false)).toBeNull();
    expect(teamConversationUrl('?id=b1&session=%20', true, false)).toBeNull();
    expect(teamConversationUrl('?session=s2', true, false)).toBeNull();
  });
});
