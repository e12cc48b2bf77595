import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notifications } from '@mantine/notifications';
import { mockFetch, type Call } from '../../../../test-utils/fetch';
import { runSignOutResets } from '@/lib/sign-out';
import { leads, leadsActions, offersAllMatching, reload, selectedCount, tickedIds } from './leads';
import { lead } from './fixtures';

const stats = {
  total: 2, new: 1, contacted: 1, qualified: 0, converted: 0, lost: 0, withEmail: 2, withName: 2, withPhone: 0,
  conversion: { thisMonth: { captured: 2, converted: 0, rate: 0 }, lastMonth: { captured: 0, converted: 0, rate: null } },
  sources: [{ source: 'website_chat', count: 2, percent: 100 }],
};

const toasts = () => (vi.mocked(notifications.show).mock.calls as unknown as [{ title?: string; message: string }][]).map(([t]) => t.title ?? t.message);

describe('leads store', () => {
  beforeEach(() => {
    runSignOutResets();
    vi.spyOn(notifications, 'show').mockImplementation(() => 'id');
  });
  afterEach(() => vi.restoreAllMocks());

  it('loads the page and the figures with the filter bar as query parameters', async () => {
    const urls: string[] = [];
    mockFetch({
      'GET /api/leads': (c: Call) => {
        urls.push(c.path);
        return { body: { leads: [lead('a'), lead('b', { status: 'contacted' })], total: 2, page: 1, limit: 50 } };
      },
      'GET /api/leads/stats': { body: { stats } },
    });
    await reload();
    expect(leads.loaded).toBe(true);
    expect(leads.leads.map((l) => l._id)).toEqual(['a', 'b']);
    expect(leads.stats?.contacted).toBe(1);
    const fetchMock = vi.mocked(fetch);
    await leadsActions.setPriority('high');
    const last = String(fetchMock.mock.calls.at(-1)?.[0]);
    expect(last).toContain('/api/leads?priority=high&page=1&limit=50');
  });

  it('shows a new list only with its figures, so the count never disagrees with the rows', async () => {
    let answerStats: (r: Response) => void = () => {};
    const slowStats = new Promise<Response>((resolve) => (answerStats = resolve));
    mockFetch({
      'GET /api/leads': { body: { leads: [lead('a'), lead('b')], total: 2, page: 1, limit: 50 } },
      'GET /api/leads/stats': () => slowStats as unknown as Promise<never>,
    });
    const done = reload();
    await new Promise((r) => setTimeout(r, 20));
    // The list has arrived, the figures have not: nothing is shown yet.
    expect(leads.leads).toEqual([]);
    expect(leads.stats).toBeNull();
    answerStats(new Response(JSON.stringify({ stats }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    await done;
    expect(leads.leads.map((l) => l._id)).toEqual(['a', 'b']);
    expect(leads.stats?.total).toBe(2);
  });

  it("says 'Failed to fetch leads' and empties the list when the list fails", async () => {
    mockFetch({ 'GET /api/leads': { status: 500, body: { error: { code: 'internal', message: 'x' } } }, 'GET /api/leads/stats': { body: { stats } } });
    await reload();
    expect(leads.leads).toEqual([]);
    expect(toasts()).toContain('Failed to fetch leads');
  });

  it('saves the inline status at once and puts it back when refused', async () => {
    let refuse = false;
    mockFetch({
      'GET /api/leads': { body: { leads: [lead('a')], total: 1, page: 1, limit: 50 } },
      'GET /api/leads/stats': { body: { stats } },
      'PATCH /api/leads/a/status': () => (refuse ? { status: 403, body: { error: { code: 'forbidden', message: 'no' } } } : { body: { lead: lead('a', { status: 'qualified' }) } }),
    });
    await reload();
    const pending = leadsActions.setStatus('a', 'qualified');
    expect(leads.leads[0].status).toBe('qualified');
    expect(await pending).toBe(true);
    expect(toasts()).toContain('Lead status updated');

    refuse = true;
    leads.leads = [lead('a', { status: 'new' })];
    expect(await leadsActions.setStatus('a', 'lost')).toBe(false);
    expect(leads.leads[0].status).toBe('new');
    expect(toasts()).toContain('Failed to update lead status');
  });

  it('tells how each change went in the words of spec 1 §8', async () => {
    const calls = mockFetch({
      'GET /api/leads': { body: { leads: [lead('a')], total: 1, page: 1, limit: 50 } },
      'GET /api/leads/stats': { body: { stats } },
      'POST /api/leads': { status: 201, body: { lead: lead('n') } },
      'PUT /api/leads/a': { status: 422, body: { error: { code: 'validation_failed', message: 'Please enter a valid email address' } } },
      'DELETE /api/leads/a': { body: { ok: true } },
    });
    await reload();
    leads.selected = ['a'];
    const input = { botId: 'b1', name: 'N', email: '', phone: '', company: '', status: 'new', priority: 'medium', leadScore: 50, notes: '', tags: '', assignedTo: null, lastContact: null };
    expect(await leadsActions.create(input)).toBe(true);
    expect(await leadsActions.update('a', input)).toBe(false);
    expect(await leadsActions.remove('a')).toBe(true);
    expect(leads.selected).toEqual([]);
    expect(toasts()).toEqual(expect.arrayContaining(['Lead created successfully', 'Failed to update lead', 'Lead deleted successfully']));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ botId: 'b1', name: 'N' });
  });

  it('exports with the filters or the selection, and says so', async () => {
    const urls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL) => {
        urls.push(String(input));
        if (String(input).includes('format=json')) return new Response('no', { status: 500 });
        return new Response('\ufeffName\r\n', { status: 200, headers: { 'Content-Disposition': 'attachment; filename="leads-2026-11-23.csv"' } });
      }),
    );
    leads.status = 'new';
    leads.selected = ['a', 'b'];
    expect(await leadsActions.exportLeads('csv')).toBe(true);
    expect(await leadsActions.exportLeads('csv', true)).toBe(true);
    expect(await leadsActions.exportLeads('json')).toBe(false);
    expect(urls[0]).toBe('/api/leads/export?status=new&format=csv');
    expect(urls[1]).toBe('/api/leads/export?format=csv&ids=a%2Cb');
    expect(toasts()).toEqual(['Leads exported as CSV', 'Leads exported as CSV', 'Failed to export leads']);
  });

  it('select-all offers every filtered lead past the page, exports them by the filters, and ends on a change', async () => {
    const urls: string[] = [];
    mockFetch({
      'GET /api/leads': { body: { leads: [lead('a'), lead('b')], total: 120, page: 1, limit: 50 } },
      'GET /api/leads/stats': { body: { stats } },
    });
    await reload();
    leads.status = 'new';
    expect(offersAllMatching(leads)).toBe(false);
    leadsActions.toggleAll();
    expect(leads.selected).toEqual(['a', 'b']);
    expect(offersAllMatching(leads)).toBe(true);
    leadsActions.selectAllMatching();
    expect([leads.allMatching, selectedCount(leads), offersAllMatching(leads)]).toEqual([true, 120, false]);

    // Export Selected sends the filters, not the page's ids.
    const listFetch = vi.mocked(fetch);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        if (String(input).startsWith('/api/leads/export')) {
          urls.push(String(input));
          return new Response('\ufeffName\r\n', { status: 200 });
        }
        return listFetch(input, init);
      }),
    );
    expect(await leadsActions.exportLeads('csv', true)).toBe(true);
    expect(urls).toEqual(['/api/leads/export?status=new&format=csv']);

    // Unticking a row: the page but that row stays selected.
    leadsActions.toggle('a');
    expect([leads.allMatching, leads.selected]).toEqual([false, ['b']]);

    // The sort matches the same leads and keeps the mode; a filter ends it, and the selection.
    leadsActions.toggleAll();
    leadsActions.selectAllMatching();
    await leadsActions.setSort('oldest');
    expect(leads.allMatching).toBe(true);
    await leadsActions.setPriority('high');
    expect([leads.allMatching, leads.selected]).toEqual([false, []]);
    leadsActions.toggleAll();
    leadsActions.selectAllMatching();
    leadsActions.setSearch('ann');
    expect([leads.allMatching, selectedCount(leads)]).toEqual([false, 0]);

    // Clear Selection, and the header's box, end it too.
    leadsActions.toggleAll();
    leadsActions.selectAllMatching();
    expect(tickedIds(leads)).toEqual(['a', 'b']);
    leadsActions.clearSelection();
    expect([leads.allMatching, selectedCount(leads)]).toEqual([false, 0]);
    leadsActions.toggleAll();
    leadsActions.selectAllMatching();
    leadsActions.toggleAll();
    expect([leads.allMatching, selectedCount(leads)]).toEqual([false, 0]);
  });

  it('offers no wider selection when the page holds every match', async () => {
    mockFetch({
      'GET /api/leads': { body: { leads: [lead('a'), lead('b')], total: 2, page: 1, limit: 50 } },
      'GET /api/leads/stats': { body: { stats } },
    });
    await reload();
    leadsActions.toggleAll();
    expect(offersAllMatching(leads)).toBe(false);
  });
});
