import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch } from '../../../../test-utils/fetch';
import { render } from '../../../../test-utils/render';

// The tab's socket, faked: acks are scripted per event, handlers are kept to fire events.
const acks: Record<string, (payload: Record<string, unknown>) => unknown> = {};
const handlers = new Map<string, ((p: unknown) => void)[]>();
const emitted: { event: string; payload: Record<string, unknown> }[] = [];
vi.mock('@/features/live/socket', async () => {
  const { proxy } = await import('valtio');
  const live = proxy({ connected: true });
  return {
    live,
    liveSocket: () => ({}),
    emitLive: (event: string, payload: Record<string, unknown>) => emitted.push({ event, payload }),
    emitAck: async (event: string, payload: Record<string, unknown>) => {
      emitted.push({ event, payload });
      const ack = (acks[event]?.(payload) ?? { success: true }) as { success: boolean; error?: string };
      if (!ack.success) throw new Error(ack.error ?? 'Please try again');
      return ack;
    },
    onLive: (event: string, h: (p: unknown) => void) => {
      handlers.set(event, [...(handlers.get(event) ?? []), h]);
      return () => handlers.set(event, (handlers.get(event) ?? []).filter((x) => x !== h));
    },
  };
});
const fire = (event: string, payload: unknown) => handlers.get(event)?.forEach((h) => h(payload));

import { support, resetSupport, startSupport, takeSession, deleteSession, sendMessage, resolveSession, setTyping, selectSession } from './support';
import { Composer } from '../components/Composer';
import { DASHBOARD_RESOLVE, ResolveModal } from '../components/ResolveModal';

const session = (id: string, extra: Record<string, unknown> = {}) => ({ _id: id, title: `Chat ${id}`, status: 'active', ...extra });
const empty = { status: 200, body: { sessions: [], total: 0 } };
const stats = { waiting: 0, activeChats: 0, resolvedToday: 0, totalResolved: 0, averageResponseSeconds: null, answeredHandoffs: 0, satisfaction: null, ratedSessions: 0 };

let stop: () => void = () => {};
beforeEach(() => {
  resetSupport();
  emitted.length = 0;
  for (const k of Object.keys(acks)) delete acks[k];
});
afterEach(() => stop());

/** Opens the agent dashboard on bot b1; `queue` answers the support-sessions read (empty by default). */
function startDashboard(queue: Parameters<typeof mockFetch>[0][string] = empty) {
  mockFetch({
    'GET /api/chat/bot/b1/support-sessions': queue,
    'GET /api/chat/bot/b1/agent-sessions': empty,
    'GET /api/chat/bot/b1/all-sessions': empty,
    'GET /api/chat/bot/b1/support-stats': { status: 200, body: stats },
  });
  render(<div />);
  stop = startSupport('b1', 'me', 'dashboard');
}

describe('support store with the live channel', () => {
  it('leaves the bot when the support screens close, but not when moving between them', async () => {
    startDashboard();
    stop();
    stop = startSupport('b1', 'me', 'inbox'); // /agent-dashboard -> /botchat: same bot
    await new Promise((r) => setTimeout(r, 5));
    expect(emitted.filter((e) => e.event === 'leave-as-agent')).toEqual([]);
    stop();
    stop = () => {};
    await new Promise((r) => setTimeout(r, 5));
    expect(emitted.filter((e) => e.event === 'leave-as-agent').map((e) => e.payload)).toEqual([{ botId: 'b1' }]);
  });

  it('joins as agent on connect, and a request from the socket toasts and queues', async () => {
    startDashboard();
    acks['join-as-agent'] = () => ({ success: true, sessions: [] });
    fire('connect', undefined);
    await waitFor(() => expect(support.online).toBe(true));
    expect(emitted.find((e) => e.event === 'join-as-agent')?.payload).toEqual({ botId: 'b1' });
    fire('support-request', { sessionId: 's1', session: session('s1', { needsHumanSupport: true }), customerMessage: 'help', customerInfo: { name: 'Vic' } });
    expect(support.queue.map((r) => r.sessionId)).toEqual(['s1']);
    expect(await screen.findByText('A customer has requested human assistance')).toBeInTheDocument();
    fire('session-taken', { sessionId: 's1', agentId: 'other' });
    expect(support.queue).toEqual([]);
  });

  it('a join-as-agent lost to a timeout is tried again; a refusal is not', async () => {
    startDashboard();
    let calls = 0;
    acks['join-as-agent'] = () => (++calls === 1 ? { success: false, error: 'operation has timed out' } : { success: true, sessions: [] });
    fire('connect', undefined);
    await waitFor(() => expect(support.online).toBe(true), { timeout: 3000 });
    expect(calls).toBe(2);

    stop();
    resetSupport();
    startDashboard();
    calls = 0;
    acks['join-as-agent'] = () => (++calls, { success: false, error: 'Bot not found' });
    fire('connect', undefined);
    await new Promise((r) => setTimeout(r, 1500));
    expect(calls).toBe(1);
    expect(support.online).toBe(false);
  });

  it('a queue read that began before a take does not put the taken session back', async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const waiting = { sessions: [session('w1', { needsHumanSupport: true })], total: 1 };
    const late = () => gate.then(() => new Response(JSON.stringify(waiting), { status: 200, headers: { 'Content-Type': 'application/json' } })) as Promise<never>;
    startDashboard(late);
    fire('session-taken', { sessionId: 'w1', agentId: 'other' });
    release();
    await waitFor(() => expect(support.loading).toBe(false));
    expect(support.queue).toEqual([]);
    // Asked again later: it is news again, live and over REST.
    fire('support-request', { sessionId: 'w1', session: session('w1', { needsHumanSupport: true }), customerMessage: 'again', customerInfo: {} });
    expect(support.queue.map((r) => r.sessionId)).toEqual(['w1']);
  });

  it('reconnect re-joins the open session with afterSeq and merges the history', async () => {
    startDashboard();
    acks['join-session'] = () => ({
      success: true,
      session: session('s1'),
      messages: [
        { _id: 'a', seq: 1, role: 'user', content: 'one', timestamp: '2026-01-01T00:00:01Z' },
        { _id: 'b', seq: 2, role: 'agent', content: 'two', timestamp: '2026-01-01T00:00:02Z' },
      ],
    });
    await selectSession('s1');
    expect(support.messages.map((m) => m._id)).toEqual(['a', 'b']);
    acks['join-session'] = (p) => {
      expect(p.afterSeq).toBe(2);
      return { success: true, session: session('s1'), messages: [{ _id: 'c', seq: 3, role: 'user', content: 'three', timestamp: '2026-01-01T00:00:03Z' }] };
    };
    fire('new-message', { sessionId: 's1', message: { _id: 'c', seq: 3, role: 'user', content: 'three', timestamp: '2026-01-01T00:00:03Z' } });
    fire('connect', undefined);
    await waitFor(() => expect(emitted.filter((e) => e.event === 'join-session')).toHaveLength(2));
    await waitFor(() => expect(support.messages.map((m) => m._id)).toEqual(['a', 'b', 'c']));
  });

  it('a lost take shows "Failed to take session"', async () => {
    startDashboard();
    acks['take-session'] = () => ({ success: false, error: 'Failed to take session' });
    expect(await takeSession('s1')).toBe(false);
    expect(await screen.findAllByText('Failed to take session')).not.toHaveLength(0);
  });

  it('a take over REST while the socket is down still says the session is assigned', async () => {
    const { live } = await import('@/features/live/socket');
    startDashboard();
    const assigned = session('s1', { assignedAgent: { _id: 'me' }, messages: [] });
    mockFetch({
      'POST /api/chat/session/s1/assign-agent': { status: 200, body: { session: assigned } },
      'GET /api/chat/get-chat-session/s1': { status: 200, body: { session: assigned } },
      'GET /api/chat/bot/b1/support-stats': { status: 200, body: stats },
    });
    live.connected = false;
    try {
      expect(await takeSession('s1')).toBe(true);
    } finally {
      live.connected = true;
    }
    expect(await screen.findByText('You are now handling this customer conversation')).toBeInTheDocument();
    expect(emitted.filter((e) => e.event === 'take-session')).toEqual([]);
  });

  it('send trims, refuses empty text, and shows the saved message once', async () => {
    startDashboard();
    acks['join-session'] = () => ({ success: true, session: session('s1'), messages: [] });
    await selectSession('s1');
    expect(await sendMessage('   ')).toBe(false);
    const saved = { _id: 'm1', seq: 1, role: 'agent', content: 'hi', timestamp: '2026-01-01T00:00:01Z' };
    acks['send-message'] = () => ({ success: true, message: saved });
    expect(await sendMessage('  hi ')).toBe(true);
    expect(emitted.find((e) => e.event === 'send-message')?.payload).toEqual({ sessionId: 's1', message: 'hi', clientId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    fire('new-message', { sessionId: 's1', message: saved });
    expect(support.messages).toHaveLength(1);
  });

  it('sends the same words again under the same id after no good answer, and new words under a new one', async () => {
    startDashboard();
    acks['join-session'] = () => ({ success: true, session: session('s1'), messages: [] });
    await selectSession('s1');
    acks['send-message'] = () => ({ success: false, error: 'operation has timed out' });
    expect(await sendMessage('On its way')).toBe(false);
    const saved = { _id: 'm2', seq: 2, role: 'agent', content: 'On its way', timestamp: '2026-01-01T00:00:02Z' };
    acks['send-message'] = () => ({ success: true, message: saved });
    expect(await sendMessage(' On its way ')).toBe(true);
    expect(await sendMessage('Anything else?')).toBe(true);
    const ids = emitted.filter((e) => e.event === 'send-message').map((e) => e.payload.clientId);
    expect(ids).toHaveLength(3);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it('typing is sent only when it changes', async () => {
    startDashboard();
    acks['join-session'] = () => ({ success: true, session: session('s1'), messages: [] });
    await selectSession('s1');
    setTyping(true);
    setTyping(true);
    setTyping(false);
    expect(emitted.filter((e) => e.event === 'typing').map((e) => e.payload.isTyping)).toEqual([true, false]);
  });

  it('resolve over the socket sends rating and notes and bumps resolved today', async () => {
    startDashboard();
    await waitFor(() => expect(support.stats).not.toBeNull());
    support.mine = [session('s1', { assignedAgent: { _id: 'me' } })];
    acks['resolve-session'] = () => ({ success: true, session: session('s1', { status: 'resolved', resolvedBy: 'Me' }) });
    expect(await resolveSession('s1', { rating: 4, notes: ' fixed ' })).toBe(true);
    expect(emitted.find((e) => e.event === 'resolve-session')?.payload).toEqual({ sessionId: 's1', rating: 4, notes: 'fixed' });
    expect(support.mine).toEqual([]);
    expect(support.stats?.resolvedToday).toBe(1);
    fire('session-resolved', { sessionId: 's1', resolvedBy: 'Me' });
    expect(support.stats?.resolvedToday).toBe(1);
    expect(await screen.findByText('The customer conversation has been successfully closed')).toBeInTheDocument();
  });

  it('delete shows the loading toast, then success or failure', async () => {
    mockFetch({
      'GET /api/sessions': { status: 200, body: { sessions: [session('ok'), session('bad')], total: 2 } },
      'GET /api/chat/bot/b1/support-sessions': empty,
      'DELETE /api/chat/sessions/ok': { status: 200, body: { ok: true } },
      'DELETE /api/chat/sessions/bad': { status: 500, body: { error: { code: 'x', message: 'boom' } } },
      'DELETE /api/chat/sessions/mine': { status: 403, body: { error: { code: 'forbidden', message: 'Your role does not allow handling support sessions' } } },
      'DELETE /api/chat/sessions/gone': { status: 404, body: { error: { code: 'not_found', message: 'Session not found' } } },
    });
    render(<div />);
    stop = startSupport('b1', 'me', 'inbox');
    await waitFor(() => expect(support.inbox).toHaveLength(2));
    expect(await deleteSession('ok')).toBe(true);
    expect(await screen.findByText('The conversation has been permanently removed')).toBeInTheDocument();
    expect(support.inbox.map((s) => s._id)).toEqual(['bad']);
    expect(await deleteSession('bad')).toBe(false);
    expect(await screen.findByText('Unable to delete the session. Please try again.')).toBeInTheDocument();
    // Any other refusal: the spec's words, not the server's.
    expect(await deleteSession('gone')).toBe(false);
    await waitFor(() => expect(screen.getAllByText('Unable to delete the session. Please try again.')).toHaveLength(2));
    expect(screen.queryByText('Session not found')).toBeNull();
    // A role that may not delete is told so, in the server's words (the spec has none for it).
    expect(await deleteSession('mine')).toBe(false);
    expect(await screen.findByText('Your role does not allow handling support sessions')).toBeInTheDocument();
  });
});

describe('composer and resolve dialog', () => {
  it('Enter sends, Shift+Enter adds a line, empty is not sent, counter out of 500', async () => {
    const onSend = vi.fn(async () => true);
    render(<Composer onSend={onSend} placeholder="Type your response..." showHint />);
    const box = screen.getByPlaceholderText('Type your response...');
    await userEvent.type(box, '{Enter}');
    expect(onSend).not.toHaveBeenCalled();
    await userEvent.type(box, 'one{Shift>}{Enter}{/Shift}two');
    expect(box).toHaveValue('one\ntwo');
    expect(screen.getByText('7/500')).toBeInTheDocument();
    expect(screen.getByText('Press Enter to send, Shift + Enter for new line')).toBeInTheDocument();
    await userEvent.type(box, '{Enter}');
    expect(onSend).toHaveBeenCalledWith('one\ntwo');
    await waitFor(() => expect(box).toHaveValue(''));
  });

  it('resolves with 5 stars by default and the notes given', async () => {
    const onResolve = vi.fn(async () => true);
    render(<ResolveModal opened onClose={() => {}} onResolve={onResolve} texts={DASHBOARD_RESOLVE} />);
    expect(screen.getByText('How would you rate this conversation?')).toBeInTheDocument();
    await userEvent.type(screen.getByPlaceholderText('Any notes about this conversation...'), 'done');
    await userEvent.click(screen.getByRole('button', { name: 'Resolve Session' }));
    expect(onResolve).toHaveBeenCalledWith({ rating: 5, notes: 'done' });
  });
});
