// The /sessions list of the active bot: one server page (50 rows, pinned first) at a time, a
// debounced title search sent to the server as `q` (and applied to the loaded page as well), a
// pinned/starred filter asked of the server, the pin and star marks, and delete.
import { proxy, ref } from 'valtio';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { errorMessage } from '@/lib/api';
import { sessionsApi, type ChatSession, type ListParams } from '../api/sessions';

export const PAGE_SIZE = 50;
export const SEARCH_DEBOUNCE_MS = 300;
export const DELETE_CONFIRM = 'Are you sure you want to delete this session?';

/** Which sessions the list shows: every one, or only the pinned or the starred ones. */
export type MarkFilter = 'all' | 'pinned' | 'starred';
export type Mark = 'pinned' | 'starred';

const FIELD: Record<Mark, 'isPinned' | 'isStarred'> = { pinned: 'isPinned', starred: 'isStarred' };

/** The list call's parameters for a filter. */
export function filterParams(filter: MarkFilter): Pick<ListParams, 'pinned' | 'starred'> {
  return filter === 'all' ? {} : { [filter]: true };
}

export interface SessionsState {
  botId: string | null;
  sessions: ChatSession[];
  total: number;
  page: number;
  /** What the search box shows; `query` is what the loaded page was asked for. */
  search: string;
  query: string;
  filter: MarkFilter;
  loading: boolean;
  error: string | null;
  deleting: string[];
}

const initial = (): SessionsState => ({
  botId: null,
  sessions: [],
  total: 0,
  page: 1,
  search: '',
  query: '',
  filter: 'all',
  loading: false,
  error: null,
  deleting: [],
});

export const sessionsList = proxy<SessionsState>(initial());

let seq = 0;
let timer: ReturnType<typeof setTimeout> | null = null;
let inflight: AbortController | null = null;
const cancelTimer = () => {
  if (timer) clearTimeout(timer);
  timer = null;
};

export function pageCount(s: Pick<SessionsState, 'total'>): number {
  return Math.max(1, Math.ceil(s.total / PAGE_SIZE));
}

async function fetchPage(): Promise<void> {
  const botId = sessionsList.botId;
  if (!botId) return;
  const mine = ++seq;
  inflight?.abort();
  const ctrl = new AbortController();
  inflight = ctrl;
  sessionsList.loading = true;
  sessionsList.error = null;
  const query = sessionsList.search.trim();
  try {
    const res = await sessionsApi.list(
      { botId, page: sessionsList.page, limit: PAGE_SIZE, q: query || undefined, ...filterParams(sessionsList.filter) },
      ctrl.signal,
    );
    if (mine !== seq) return;
    sessionsList.sessions = res.sessions.map((s) => ref(s) as ChatSession);
    sessionsList.total = res.total;
    sessionsList.query = query;
    // A page past the end (rows deleted elsewhere): go to the last one.
    if (res.sessions.length === 0 && sessionsList.page > 1 && res.total > 0) {
      sessionsList.page = pageCount(res);
      await fetchPage();
    }
  } catch (err) {
    if (mine !== seq || (err as Error)?.name === 'AbortError') return;
    sessionsList.sessions = [];
    sessionsList.total = 0;
    sessionsList.error = 'Failed to load conversations';
  } finally {
    if (mine === seq) sessionsList.loading = false;
  }
}

export const sessionsActions = {
  /** Opens the list of `botId`: a new bot starts on page 1 with no search; the same bot refreshes its page. */
  async open(botId: string): Promise<void> {
    cancelTimer();
    if (sessionsList.botId !== botId) Object.assign(sessionsList, initial(), { botId });
    await fetchPage();
  },
  reload: () => fetchPage(),
  async setPage(page: number): Promise<void> {
    cancelTimer();
    sessionsList.page = Math.min(Math.max(1, page), pageCount(sessionsList));
    await fetchPage();
  },
  /** Filters the loaded page at once; asks the server (page 1) after SEARCH_DEBOUNCE_MS of quiet. */
  setSearch(text: string): void {
    sessionsList.search = text;
    cancelTimer();
    timer = setTimeout(() => {
      timer = null;
      sessionsList.page = 1;
      void fetchPage();
    }, SEARCH_DEBOUNCE_MS);
  },
  /** Shows all, pinned or starred sessions, from page 1. */
  async setFilter(filter: MarkFilter): Promise<void> {
    if (sessionsList.filter === filter) return;
    cancelTimer();
    sessionsList.filter = filter;
    sessionsList.page = 1;
    await fetchPage();
  },
  /**
   * Pins or stars (or takes the mark off) at once on the row, then saves; a refusal puts the row
   * back. The page is then read again: a pin moves the row to the top, and under a filter a row
   * that lost its mark leaves the list.
   */
  async toggleMark(id: string, mark: Mark): Promise<boolean> {
    const row = sessionsList.sessions.find((s) => s._id === id);
    if (!row) return false;
    const field = FIELD[mark];
    const value = !row[field];
    const put = (s: ChatSession) => {
      sessionsList.sessions = sessionsList.sessions.map((r) => (r._id === id ? (ref(s) as ChatSession) : r));
    };
    put({ ...row, [field]: value });
    try {
      const { session } = await sessionsApi.mark(id, { [mark]: value });
      put({ ...row, ...session });
      await fetchPage();
      return true;
    } catch (err) {
      put(row);
      notify.error(mark === 'pinned' ? 'Pin not saved' : 'Star not saved', errorMessage(err, 'Please try again.'));
      return false;
    }
  },
  /** Deletes after the caller's confirmation, with the spec's loading/success/failure toasts. */
  async remove(id: string): Promise<boolean> {
    if (sessionsList.deleting.includes(id)) return false;
    sessionsList.deleting.push(id);
    const toast = notify.loading('Deleting Session', 'Please wait while we delete the conversation...');
    try {
      await sessionsApi.remove(id);
      const before = sessionsList.sessions.length;
      sessionsList.sessions = sessionsList.sessions.filter((s) => s._id !== id);
      if (sessionsList.sessions.length < before) sessionsList.total = Math.max(0, sessionsList.total - 1);
      notify.done(toast, 'success', 'Session Deleted', 'The conversation has been permanently removed');
      // The page emptied but more remain: show the rows that moved up.
      if (sessionsList.sessions.length === 0 && sessionsList.total > 0) void fetchPage();
      return true;
    } catch {
      notify.done(toast, 'error', 'Delete Failed', 'Unable to delete the session. Please try again.');
      return false;
    } finally {
      sessionsList.deleting = sessionsList.deleting.filter((d) => d !== id);
    }
  },
};

onSignOut(() => {
  cancelTimer();
  inflight?.abort();
  seq++;
  Object.assign(sessionsList, initial());
});
