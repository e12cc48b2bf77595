import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render } from '../../../../test-utils/render';
import { mockFetch, type Call } from '../../../../test-utils/fetch';
import { runSignOutResets } from '@/lib/sign-out';
import { PAGE_SIZE, SEARCH_DEBOUNCE_MS, sessionsActions, sessionsList } from '../stores/sessions';
import { SessionsList } from './SessionsList';

function session(i: number, extra: Record<string, unknown> = {}) {
  const id = `sess-${String(i).padStart(8, '0')}`;
  return {
    _id: id,
    id,
    botId: 'b1',
    title: `Conversation ${i}`,
    status: 'active',
    lastMessage: `message ${i}`,
    messageCount: 2,
    timestamp: new Date().toISOString(),
    isPinned: false,
    isStarred: false,
    needsHumanSupport: false,
    assignedAgent: null,
    ...extra,
  };
}

const ALL = Array.from({ length: 120 }, (_, i) => session(i + 1));

/** A fake GET /api/sessions over ALL: pages of `limit`, `q` matched on the title. */
function server(all = ALL) {
  let rows = [...all];
  const lists: URLSearchParams[] = [];
  const calls = mockFetch({
    'GET /api/sessions': (c: Call) => {
      const params = new URL(String(lastUrl(c)), 'http://x').searchParams;
      lists.push(params);
      const q = (params.get('q') ?? '').toLowerCase();
      const page = Number(params.get('page'));
      const limit = Number(params.get('limit'));
      const wants = (name: string, value: boolean) => !params.has(name) || String(value) === params.get(name);
      const hit = rows
        .filter((r) => (r.title ?? '').toLowerCase().includes(q))
        .filter((r) => wants('pinned', r.isPinned) && wants('starred', r.isStarred))
        .sort((a, b) => Number(b.isPinned) - Number(a.isPinned));
      return { body: { sessions: hit.slice((page - 1) * limit, page * limit), total: hit.length, page, limit } };
    },
    'DELETE /api/chat/sessions/sess-00000002': () => {
      rows = rows.filter((r) => r._id !== 'sess-00000002');
      return { body: { ok: true } };
    },
    'DELETE /api/chat/sessions/sess-00000003': { status: 500, body: { error: { code: 'internal', message: 'boom' } } },
    'PUT /api/chat/session/sess-00000002': (c: Call) => {
      const body = c.body as { pinned?: boolean; starred?: boolean };
      rows = rows.map((r) =>
        r._id === 'sess-00000002'
          ? { ...r, isPinned: body.pinned ?? r.isPinned, isStarred: body.starred ?? r.isStarred }
          : r,
      );
      return { body: { session: rows.find((r) => r._id === 'sess-00000002') } };
    },
    'PUT /api/chat/session/sess-00000003': {
      status: 403,
      body: { error: { code: 'forbidden', message: 'Your role does not allow pinning or starring conversations' } },
    },
  });
  return { calls, lists };
}

// mockFetch keeps only the path; read the query from the fetch mock's own arguments.
function lastUrl(_c: Call): string {
  const mock = globalThis.fetch as unknown as { mock: { calls: [RequestInfo | URL][] } };
  return String(mock.mock.calls[mock.mock.calls.length - 1][0]);
}

describe('sessions store and list', () => {
  beforeEach(() => runSignOutResets());

  it('loads server pages of 50 and moves between them', async () => {
    const { lists } = server();
    await sessionsActions.open('b1');
    expect(lists[0].get('botId')).toBe('b1');
    expect(lists[0].get('limit')).toBe(String(PAGE_SIZE));
    expect(sessionsList.sessions).toHaveLength(50);
    expect(sessionsList.total).toBe(120);
    await sessionsActions.setPage(3);
    expect(sessionsList.sessions.map((s) => s._id)[0]).toBe('sess-00000101');
    expect(sessionsList.sessions).toHaveLength(20);
  });

  it('renders rows with title, preview, flags and pagination', async () => {
    server([
      session(1, { title: null, isPinned: true, needsHumanSupport: true, lastMessage: 'z'.repeat(80) }),
      session(2, { isStarred: true, assignedAgent: { _id: 'a', id: 'a', name: 'Ann' }, status: 'resolved', timestamp: 'garbage' }),
    ]);
    render(<SessionsList botId="b1" />);
    await screen.findAllByTestId('session-row');
    expect(screen.getAllByTestId('session-title').map((t) => t.textContent)).toEqual(['Chat 000001', 'Conversation 2']);
    expect(screen.getAllByTestId('session-preview')[0].textContent).toBe(`${'z'.repeat(60)}...`);
    expect(screen.getByLabelText('Pinned', { selector: 'svg' })).toBeInTheDocument();
    expect(screen.getByLabelText('Starred', { selector: 'svg' })).toBeInTheDocument();
    expect(screen.getByText('Needs Support')).toBeInTheDocument();
    expect(screen.getByText('Agent Assigned')).toBeInTheDocument();
    expect(screen.getByText('Invalid date')).toBeInTheDocument();
    expect(screen.getByText('0m ago')).toBeInTheDocument();
  });

  it('filters the loaded page at once and asks the server with q after the debounce', async () => {
    const { lists } = server();
    render(<SessionsList botId="b1" />);
    const u = userEvent.setup();
    await screen.findAllByTestId('session-row');
    await u.type(screen.getByPlaceholderText('Search conversations...'), ' 11');
    // Client-side at once: 11 on page 1 only (101-120 are on later pages).
    expect(screen.getAllByTestId('session-title').map((t) => t.textContent)).toEqual(['Conversation 11']);
    await waitFor(() => expect(lists.at(-1)?.get('q')).toBe('11'));
    // Debounced: far fewer calls than keystrokes (exact timing is tested with fake timers below).
    expect(lists.filter((l) => l.has('q')).length).toBeLessThan(5);
    await waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(11)); // 11, 110-119
    expect(sessionsList.total).toBe(11);

    await u.clear(screen.getByPlaceholderText('Search conversations...'));
    await u.type(screen.getByPlaceholderText('Search conversations...'), 'zzz');
    await screen.findByText('No conversations found');
  }, 20000);

  it('debounces the server search by 300 ms and restarts at page 1', async () => {
    vi.useFakeTimers();
    try {
      const { lists } = server();
      await sessionsActions.open('b1');
      await sessionsActions.setPage(2);
      const before = lists.length;
      sessionsActions.setSearch('Conv');
      await vi.advanceTimersByTimeAsync(200);
      sessionsActions.setSearch('Conversation 7');
      await vi.advanceTimersByTimeAsync(SEARCH_DEBOUNCE_MS - 1);
      expect(lists.length).toBe(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(lists.length).toBe(before + 1);
      expect(lists.at(-1)?.get('q')).toBe('Conversation 7');
      expect(lists.at(-1)?.get('page')).toBe('1');
      await vi.runAllTimersAsync();
      expect(sessionsList.total).toBe(11); // 'Conversation 7' matches 7 and 70-79
    } finally {
      vi.useRealTimers();
    }
  });

  it('says No conversations yet when the bot has none', async () => {
    server([]);
    render(<SessionsList botId="b1" />);
    await screen.findByText('No conversations yet');
  });

  it('deletes a row after the confirmation, and keeps it when the server refuses', async () => {
    server(ALL.slice(0, 5));
    render(<SessionsList botId="b1" />);
    const u = userEvent.setup();
    await screen.findAllByTestId('session-row');
    await u.click(screen.getByRole('button', { name: 'Delete Conversation 2' }));
    expect(await screen.findByText('Are you sure you want to delete this session?')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Delete' }));
    await screen.findByText('The conversation has been permanently removed');
    expect(screen.queryByText('Conversation 2')).toBeNull();
    expect(sessionsList.total).toBe(4);

    await u.click(screen.getByRole('button', { name: 'Delete Conversation 3' }));
    await u.click(await screen.findByRole('button', { name: 'Delete' }));
    await screen.findByText('Unable to delete the session. Please try again.');
    expect(screen.getByText('Conversation 3')).toBeInTheDocument();
    expect(sessionsList.total).toBe(4);
  });

  it('cancel keeps the row', async () => {
    const { calls } = server(ALL.slice(0, 2));
    render(<SessionsList botId="b1" />);
    const u = userEvent.setup();
    await screen.findAllByTestId('session-row');
    await u.click(screen.getByRole('button', { name: 'Delete Conversation 1' }));
    await u.click(await screen.findByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(screen.getAllByTestId('session-row')).toHaveLength(2);
  });

  it('pins and stars a row, the pinned one moving to the top, and a refusal puts it back', async () => {
    const { calls } = server(ALL.slice(0, 3));
    render(<SessionsList botId="b1" />);
    const u = userEvent.setup();
    await screen.findAllByTestId('session-row');
    await u.click(screen.getByRole('button', { name: 'Pin Conversation 2' }));
    await waitFor(() =>
      expect(screen.getAllByTestId('session-title').map((t) => t.textContent)).toEqual(['Conversation 2', 'Conversation 1', 'Conversation 3']),
    );
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ pinned: true });
    expect(screen.getByRole('button', { name: 'Unpin Conversation 2' })).toHaveAttribute('aria-pressed', 'true');
    await u.click(screen.getByRole('button', { name: 'Star Conversation 2' }));
    expect(await screen.findByRole('button', { name: 'Unstar Conversation 2' })).toHaveAttribute('aria-pressed', 'true');
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ pinned: true }, { starred: true }]);

    await u.click(screen.getByRole('button', { name: 'Star Conversation 3' }));
    await screen.findByText('Your role does not allow pinning or starring conversations');
    expect(screen.getByRole('button', { name: 'Star Conversation 3' })).toHaveAttribute('aria-pressed', 'false');
  });

  it('filters pinned and starred on the server, from page 1', async () => {
    const { lists } = server([session(1), session(2, { isStarred: true }), session(3, { isPinned: true })]);
    render(<SessionsList botId="b1" />);
    const u = userEvent.setup();
    await screen.findAllByTestId('session-row');
    await u.click(screen.getByText('Pinned'));
    await waitFor(() => expect(screen.getAllByTestId('session-title').map((t) => t.textContent)).toEqual(['Conversation 3']));
    expect(lists.at(-1)?.get('pinned')).toBe('true');
    expect(lists.at(-1)?.get('page')).toBe('1');
    await u.click(screen.getByText('Starred'));
    await waitFor(() => expect(screen.getAllByTestId('session-title').map((t) => t.textContent)).toEqual(['Conversation 2']));
    expect(lists.at(-1)?.has('pinned')).toBe(false);
    expect(lists.at(-1)?.get('starred')).toBe('true');
    // Taking the star off under the Starred filter: the row leaves the list.
    await u.click(screen.getByRole('button', { name: 'Unstar Conversation 2' }));
    await screen.findByText('No starred conversations');
    await u.click(screen.getByText('All'));
    await waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(3));
  });

  it('a viewer sees the marks but has no toggles', async () => {
    server([session(1, { isPinned: true })]);
    render(<SessionsList botId="b1" canMark={false} canDelete={false} />);
    await screen.findAllByTestId('session-row');
    expect(screen.getByLabelText('Pinned', { selector: 'svg' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Pin|Unpin|Star/ })).toBeNull();
  });
});
