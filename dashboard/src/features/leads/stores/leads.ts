// The Leads page's state: the filter bar, one server page of the table, the figures, the
// selection, and every change with spec 1 §8's toasts. After each change the list and the
// figures reload (spec 1 §4). A lead captured while the page is open arrives as the socket's
// `lead-captured`; without a socket the page reloads every 30 s (spec 1 §9's refresh).
import { proxy, ref } from 'valtio';
import { onLive } from '@/features/live/socket';
import { errorMessage } from '@/lib/api';
import { notify } from '@/lib/notify';
import { onSignOut } from '@/lib/sign-out';
import { leadsApi, type ExportFormat, type Lead, type LeadInput, type LeadQuery, type LeadSort, type LeadStats } from '../api/leads';
import { toggleAll, toggleOne } from './format';

export const PAGE_SIZE = 50;
export const SEARCH_DEBOUNCE_MS = 300;
export const REFRESH_MS = 30_000;

export interface LeadsState {
  botId: string;
  search: string;
  status: string;
  priority: string;
  sort: LeadSort;
  leads: Lead[];
  total: number;
  page: number;
  /** False until the first list arrives (the header says 'Loading...'). */
  loaded: boolean;
  loading: boolean;
  stats: LeadStats | null;
  selected: string[];
  /**
   * Every lead the filters match is selected, on every page (spec 1 §4: "select-all selects all
   * currently filtered rows"), not only the ids in `selected`: "Export Selected" then sends the
   * filters. Ends when a filter changes or the selection is changed by hand.
   */
  allMatching: boolean;
  exporting: boolean;
}

const initial = (): LeadsState => ({
  botId: 'all',
  search: '',
  status: 'all',
  priority: 'all',
  sort: 'newest',
  leads: [],
  total: 0,
  page: 1,
  loaded: false,
  loading: false,
  stats: null,
  selected: [],
  allMatching: false,
  exporting: false,
});

export const leads = proxy<LeadsState>(initial());

let seq = 0;
let inflight: AbortController | null = null;
let searchTimer: ReturnType<typeof setTimeout> | null = null;

const query = (): LeadQuery => ({ botId: leads.botId, q: leads.search, status: leads.status, priority: leads.priority, sort: leads.sort });

export function pageCount(s: Pick<LeadsState, 'total'>): number {
  return Math.max(1, Math.ceil(s.total / PAGE_SIZE));
}

/** What the selection's helpers read (a component's snapshot will do). */
interface SelectionView {
  allMatching: boolean;
  total: number;
  selected: readonly string[];
  leads: readonly Pick<Lead, '_id'>[];
}

/** How many leads are selected: every match in the all-matching mode. */
export function selectedCount(s: Pick<SelectionView, 'allMatching' | 'total' | 'selected'>): number {
  return s.allMatching ? s.total : s.selected.length;
}

/** The ids the table shows ticked: in the all-matching mode, every row of the page. */
export function tickedIds(s: Pick<SelectionView, 'allMatching' | 'selected' | 'leads'>): readonly string[] {
  return s.allMatching ? s.leads.map((l) => l._id) : s.selected;
}

/** The selection bar offers 'Select all {total} leads' once the whole page is ticked and more match. */
export function offersAllMatching(s: SelectionView): boolean {
  return !s.allMatching && s.leads.length > 0 && s.total > s.leads.length && s.leads.every((l) => s.selected.includes(l._id));
}

/** A selection of "every match" meant the old filters: with new ones nothing is selected. */
function endAllMatching(): void {
  if (!leads.allMatching) return;
  leads.allMatching = false;
  leads.selected = [];
}

/**
 * Loads one page of the list. With `stats` (the figures, fetched alongside), both land in the
 * same update, so the header's count never disagrees with the rows for a moment.
 */
async function loadList({ quiet = false, stats }: { quiet?: boolean; stats?: Promise<LeadStats | null> } = {}): Promise<void> {
  const mine = ++seq;
  inflight?.abort();
  const ctrl = new AbortController();
  inflight = ctrl;
  leads.loading = true;
  try {
    const res = await leadsApi.list(query(), leads.page, PAGE_SIZE, ctrl.signal);
    const figures = stats ? await stats : undefined;
    if (mine !== seq) return;
    if (figures !== undefined) leads.stats = figures;
    leads.leads = res.leads.map((l) => ref(l) as Lead);
    leads.total = res.total;
    leads.loaded = true;
    if (res.leads.length === 0 && leads.page > 1 && res.total > 0) {
      leads.page = pageCount(res);
      await loadList({ quiet });
    }
  } catch (err) {
    if (mine !== seq || (err as Error)?.name === 'AbortError') return;
    if (stats) leads.stats = await stats;
    // Spec 1 §4: a failed fetch resets its data.
    leads.leads = [];
    leads.total = 0;
    leads.loaded = true;
    if (!quiet) notify.error('Failed to fetch leads');
  } finally {
    if (mine === seq) leads.loading = false;
  }
}

/** The figures of the chosen bots; null when they could not be had. */
async function fetchStats(): Promise<LeadStats | null> {
  try {
    return (await leadsApi.stats(leads.botId)).stats;
  } catch (err) {
    // Spec 1 §8: a stats failure is only logged.
    console.warn('lead stats', err);
    return null;
  }
}

export const reload = ({ quiet = false } = {}) => loadList({ quiet, stats: fetchStats() });

function setFilter(patch: Partial<Pick<LeadsState, 'botId' | 'status' | 'priority' | 'sort'>>): Promise<void> {
  // The sort changes no match, so it keeps the selection of every match.
  if (!('sort' in patch && Object.keys(patch).length === 1)) endAllMatching();
  Object.assign(leads, patch, { page: 1 });
  // Another bot: its figures arrive with its list.
  return loadList({ stats: 'botId' in patch ? fetchStats() : undefined });
}

export const leadsActions = {
  setBot: (botId: string) => setFilter({ botId }),
  setStatusFilter: (status: string) => setFilter({ status }),
  setPriority: (priority: string) => setFilter({ priority }),
  setSort: (sort: LeadSort) => setFilter({ sort }),
  /** The box shows the text at once; the server is asked after SEARCH_DEBOUNCE_MS of quiet. */
  setSearch(text: string): void {
    if (text !== leads.search) endAllMatching();
    leads.search = text;
    if (searchTimer) clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      searchTimer = null;
      leads.page = 1;
      void loadList();
    }, SEARCH_DEBOUNCE_MS);
  },
  /** 'Clear all filters': search, status and priority (the bot and sort stay). */
  clearFilters(): Promise<void> {
    if (searchTimer) clearTimeout(searchTimer);
    searchTimer = null;
    endAllMatching();
    Object.assign(leads, { search: '', status: 'all', priority: 'all', page: 1 });
    return loadList();
  },
  setPage(page: number): Promise<void> {
    leads.page = Math.min(Math.max(1, page), pageCount(leads));
    return loadList();
  },
  /** A row's box. In the all-matching mode: the page's rows but this one stay selected. */
  toggle(id: string): void {
    if (leads.allMatching) {
      leads.allMatching = false;
      leads.selected = leads.leads.map((l) => l._id).filter((l) => l !== id);
      return;
    }
    leads.selected = toggleOne(leads.selected, id);
  },
  /** The header's box: the page's rows; unticked in the all-matching mode, nothing stays selected. */
  toggleAll(): void {
    if (leads.allMatching) {
      leads.allMatching = false;
      leads.selected = [];
      return;
    }
    leads.selected = toggleAll(leads.selected, leads.leads);
  },
  /** 'Select all {total} leads': every lead the filters match, on every page. */
  selectAllMatching(): void {
    leads.selected = [...new Set([...leads.selected, ...leads.leads.map((l) => l._id)])];
    leads.allMatching = true;
  },
  clearSelection(): void {
    leads.allMatching = false;
    leads.selected = [];
  },

  async create(input: LeadInput): Promise<boolean> {
    try {
      await leadsApi.create(input);
      notify.success('Lead created successfully');
      void reload();
      return true;
    } catch (err) {
      notify.error('Failed to create lead', errorMessage(err, ''));
      return false;
    }
  },
  async update(id: string, input: LeadInput): Promise<boolean> {
    try {
      await leadsApi.update(id, input);
      notify.success('Lead updated successfully');
      void reload();
      return true;
    } catch (err) {
      notify.error('Failed to update lead', errorMessage(err, ''));
      return false;
    }
  },
  /** The inline select: shown at once, saved at once, put back if the server refuses. */
  async setStatus(id: string, status: string): Promise<boolean> {
    const before = leads.leads.find((l) => l._id === id);
    if (!before || before.status === status) return false;
    const swap = (s: string) => {
      leads.leads = leads.leads.map((l) => (l._id === id ? (ref({ ...l, status: s }) as Lead) : l));
    };
    swap(status);
    try {
      await leadsApi.setStatus(id, status);
      notify.success('Lead status updated');
      void reload({ quiet: true });
      return true;
    } catch (err) {
      swap(before.status);
      notify.error('Failed to update lead status', errorMessage(err, ''));
      return false;
    }
  },
  /** After the caller's confirmation. */
  async remove(id: string): Promise<boolean> {
    try {
      await leadsApi.remove(id);
      leads.selected = leads.selected.filter((s) => s !== id);
      notify.success('Lead deleted successfully');
      void reload();
      return true;
    } catch (err) {
      notify.error('Failed to delete lead', errorMessage(err, ''));
      return false;
    }
  },
  /** The whole filtered list, or the selection (`selectedOnly`); a selection of every match is the filtered list. */
  async exportLeads(format: ExportFormat, selectedOnly = false): Promise<boolean> {
    if (leads.exporting) return false;
    leads.exporting = true;
    try {
      const ids = selectedOnly && !leads.allMatching ? [...leads.selected] : undefined;
      const { blob, filename } = await leadsApi.exportFile(format, query(), ids);
      saveFile(blob, filename);
      notify.success(`Leads exported as ${format.toUpperCase()}`);
      return true;
    } catch {
      notify.error('Failed to export leads');
      return false;
    } finally {
      leads.exporting = false;
    }
  },
};

function saveFile(blob: Blob, filename: string): void {
  if (typeof URL.createObjectURL !== 'function') return; // jsdom
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

let liveTimer: ReturnType<typeof setTimeout> | null = null;

/** Opens the page: loads, follows new leads live, refreshes every 30 s; returns the stop. */
export function startLeads(): () => void {
  void reload();
  const offLead = onLive<{ botId?: string }>('lead-captured', (e) => {
    if (leads.botId !== 'all' && e?.botId !== leads.botId) return;
    // A burst of details (one visitor filling a form) reloads once.
    if (liveTimer) clearTimeout(liveTimer);
    liveTimer = setTimeout(() => {
      liveTimer = null;
      void reload({ quiet: true });
    }, 250);
  });
  const timer = setInterval(() => void reload({ quiet: true }), REFRESH_MS);
  return () => {
    offLead();
    clearInterval(timer);
    if (liveTimer) clearTimeout(liveTimer);
    liveTimer = null;
  };
}

onSignOut(() => {
  if (searchTimer) clearTimeout(searchTimer);
  inflight?.abort();
  seq++;
  Object.assign(leads, initial());
});
