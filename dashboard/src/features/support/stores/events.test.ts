import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatSession, SupportStats } from '../api/support';
import * as ev from './events';

const session = (id: string, extra: Partial<ChatSession> = {}): ChatSession => ({
  _id: id,
  title: `Chat ${id}`,
  status: 'active',
  needsHumanSupport: false,
  assignedAgent: null,
  ...extra,
});
const msg = (id: string, seq: number, role: ChatMessage['role'] = 'user', content = `m${seq}`): ChatMessage => ({
  _id: id,
  seq,
  role,
  content,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
});
const stats = (extra: Partial<SupportStats> = {}): SupportStats => ({
  waiting: 0,
  activeChats: 0,
  resolvedToday: 0,
  totalResolved: 0,
  averageResponseSeconds: null,
  answeredHandoffs: 0,
  satisfaction: null,
  ratedSessions: 0,
  ...extra,
});
function state(extra: Partial<ev.SupportState> = {}): ev.SupportState {
  return { ...ev.initialSupportState(), botId: 'b1', me: 'me', ...extra };
}
const request = (id: string) => ({
  sessionId: id,
  session: session(id, { needsHumanSupport: true }),
  customerMessage: 'I need a person',
  customerInfo: { name: 'Vic', email: 'vic@example.com' },
  timestamp: '2026-01-01T00:00:00Z',
});

describe('support requests and takes', () => {
  it('a support request makes one urgent queue entry and raises the queue figure once', () => {
    const s = state({ stats: stats() });
    expect(ev.applySupportRequest(s, request('s1'))).toBe(true);
    expect(ev.applySupportRequest(s, request('s1'))).toBe(false);
    expect(s.queue.map((r) => r.sessionId)).toEqual(['s1']);
    expect(s.queue[0].customerInfo.email).toBe('vic@example.com');
    expect(s.stats?.waiting).toBe(1);
    expect(s.open.map((x) => x._id)).toEqual(['s1']);
  });

  it('a take by another agent removes the entry from my queue and does not make it mine', () => {
    const s = state({ stats: stats() });
    ev.applySupportRequest(s, request('s1'));
    ev.applySupportRequest(s, request('s2'));
    ev.applySessionTaken(s, { sessionId: 's1', agentId: 'other', agentName: 'Olive' });
    expect(s.queue.map((r) => r.sessionId)).toEqual(['s2']);
    expect(s.mine).toEqual([]);
    expect(s.open.find((x) => x._id === 's1')?.assignedAgent?._id).toBe('other');
    expect(s.stats).toMatchObject({ waiting: 1, activeChats: 1 });
    // Not joinable by me in the all-sessions list? It is: any agent can join an open session.
    expect(ev.joinable(s).map((x) => x._id)).toContain('s1');
  });

  it('my own take (session-taken then session-assigned) puts it in My Active Sessions once', () => {
    const s = state();
    ev.applySupportRequest(s, request('s1'));
    ev.applySessionTaken(s, { sessionId: 's1', agentId: 'me', agentName: 'Me' });
    ev.applySessionAssigned(s, { sessionId: 's1', session: session('s1', { assignedAgent: { _id: 'me' } }) });
    expect(s.queue).toEqual([]);
    expect(s.mine.map((x) => x._id)).toEqual(['s1']);
    expect(ev.joinable(s)).toEqual([]);
  });

  it('active-support-sessions replaces the queue with the waiting sessions only', () => {
    const s = state();
    ev.applySupportRequest(s, request('old'));
    ev.applyActiveSupportSessions(s, {
      sessions: [session('a', { needsHumanSupport: true }), session('b', { needsHumanSupport: true, assignedAgent: { _id: 'x' } })],
    });
    expect(s.queue.map((r) => r.sessionId)).toEqual(['a']);
  });

  it('session-updated drops a session that no longer waits from the queue', () => {
    const s = state();
    ev.applySupportRequest(s, request('s1'));
    ev.applySessionUpdated(s, { sessionId: 's1', session: session('s1', { needsHumanSupport: true, priority: 'urgent' }) });
    expect(s.queue[0].session.priority).toBe('urgent');
    ev.applySessionUpdated(s, { sessionId: 's1', session: session('s1', { needsHumanSupport: true, assignedAgent: { _id: 'x' } }) });
    expect(s.queue).toEqual([]);
  });
});

describe('resolve', () => {
  it('removes the session from every open list, counts it once, lowers active chats', () => {
    const s = state({ stats: stats({ activeChats: 1, resolvedToday: 2, totalResolved: 10 }) });
    s.inbox = [session('s1', { assignedAgent: { _id: 'me' } })];
    s.open = [session('s1', { assignedAgent: { _id: 'me' } })];
    s.mine = [session('s1', { assignedAgent: { _id: 'me' } })];
    s.joined = ['s1'];
    s.live = ['s1'];
    ev.applySessionResolved(s, { sessionId: 's1', resolvedBy: 'Me', timestamp: '2026-01-01T01:00:00Z' });
    // The resolver hears its own session-resolved too: still counted once.
    ev.applySessionResolved(s, { sessionId: 's1', resolvedBy: 'Me' });
    expect(s.open).toEqual([]);
    expect(s.mine).toEqual([]);
    expect(s.joined).toEqual([]);
    expect(s.live).toEqual([]);
    expect(s.inbox[0]).toMatchObject({ status: 'resolved', resolvedAt: '2026-01-01T01:00:00Z', resolvedBy: 'Me' });
    expect(s.stats).toMatchObject({ activeChats: 0, resolvedToday: 3, totalResolved: 11 });
  });

  it('never lowers active chats below 0', () => {
    const s = state({ stats: stats({ activeChats: 0 }) });
    s.open = [session('s1')];
    ev.applySessionResolved(s, { sessionId: 's1' });
    expect(s.stats?.activeChats).toBe(0);
    expect(s.stats?.resolvedToday).toBe(1);
  });

  it('a session this state does not know (another bot) is not counted', () => {
    const s = state({ stats: stats({ activeChats: 2 }) });
    ev.applySessionResolved(s, { sessionId: 'elsewhere' });
    expect(s.stats).toMatchObject({ activeChats: 2, resolvedToday: 0, totalResolved: 0 });
  });

  it('a resolved request leaves the queue', () => {
    const s = state({ stats: stats() });
    ev.applySupportRequest(s, request('s1'));
    ev.applySessionResolved(s, { sessionId: 's1' });
    expect(s.queue).toEqual([]);
    expect(s.stats?.waiting).toBe(0);
  });
});

describe('messages', () => {
  it('new messages reach the open chat; others get the new-message marker and preview', () => {
    const s = state();
    s.inbox = [session('s1'), session('s2')];
    ev.applySelect(s, 's1');
    ev.applyNewMessage(s, { sessionId: 's1', message: msg('a', 1) });
    ev.applyNewMessage(s, { sessionId: 's2', message: msg('b', 1, 'user', 'hello?') });
    ev.applyNewMessage(s, { sessionId: 's2', message: msg('c', 2, 'bot', 'Hi!') });
    expect(s.messages.map((m) => m._id)).toEqual(['a']);
    expect(s.inbox[0].hasNewMessage).toBeFalsy();
    expect(s.inbox[1]).toMatchObject({ hasNewMessage: true, lastMessage: 'Hi!' });
    ev.applySelect(s, 's2');
    expect(s.inbox[1].hasNewMessage).toBe(false);
    expect(s.messages).toEqual([]);
  });

  it('a customer message clears the typing indicator', () => {
    const s = state();
    ev.applyCustomerTyping(s, { sessionId: 's1', isTyping: true });
    expect(s.typing.s1).toBe(true);
    ev.applyNewMessage(s, { sessionId: 's1', message: msg('a', 1) });
    expect(s.typing.s1).toBe(false);
  });

  it('reconnect: the join-session history is merged by _id, no duplicates, missing ones filled, in order', () => {
    const s = state();
    ev.applySelect(s, 's1');
    ev.applyJoined(s, { sessionId: 's1', messages: [msg('a', 1), msg('b', 2)] });
    // Heard live before the drop.
    ev.applyNewMessage(s, { sessionId: 's1', message: msg('c', 3) });
    expect(ev.lastSeq(s.messages)).toBe(3);
    // During the drop 'd' and 'e' were sent; recovery replays 'e' and the rejoin brings c..e.
    ev.applyNewMessage(s, { sessionId: 's1', message: msg('e', 5) });
    ev.applyJoined(s, { sessionId: 's1', messages: [msg('c', 3), msg('d', 4), msg('e', 5)] });
    expect(s.messages.map((m) => m._id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    ev.applyJoined(s, { sessionId: 's1', messages: [msg('a', 1), msg('e', 5)] });
    expect(s.messages).toHaveLength(5);
  });

  it('a join for another session does not leak into the open chat', () => {
    const s = state();
    ev.applySelect(s, 's1');
    ev.applyJoined(s, { sessionId: 's2', messages: [msg('x', 1)] });
    expect(s.messages).toEqual([]);
  });

  it('streamed pieces build a bot reply that its final new-message replaces', () => {
    const s = state();
    ev.applySelect(s, 's1');
    ev.applyMessageDelta(s, { sessionId: 's1', messageId: 'r', delta: 'Hel' });
    ev.applyMessageDelta(s, { sessionId: 's1', messageId: 'r', delta: 'lo' });
    expect(s.messages[0]).toMatchObject({ content: 'Hello', streaming: true });
    ev.applyNewMessage(s, { sessionId: 's1', message: msg('r', 2, 'bot', 'Hello there') });
    expect(s.messages).toHaveLength(1);
    expect(s.messages[0]).toMatchObject({ content: 'Hello there', streaming: false, seq: 2 });
  });

  it('an edited message replaces its text in place', () => {
    const s = state();
    ev.applySelect(s, 's1');
    ev.applyJoined(s, { sessionId: 's1', messages: [msg('a', 1, 'bot', 'old')] });
    ev.applyMessageUpdated(s, { sessionId: 's1', message: { ...msg('a', 1, 'bot', 'new'), editedAt: 'x' } });
    expect(s.messages[0].content).toBe('new');
  });

  it('a deleted session disappears and closes the open chat', () => {
    const s = state();
    s.inbox = [session('s1')];
    ev.applySupportRequest(s, request('s1'));
    ev.applySelect(s, 's1');
    ev.applyJoined(s, { sessionId: 's1', messages: [msg('a', 1)] });
    ev.applySessionDeleted(s, { sessionId: 's1' });
    expect(s.inbox).toEqual([]);
    expect(s.queue).toEqual([]);
    expect(s.selectedId).toBeNull();
    expect(s.messages).toEqual([]);
  });
});
