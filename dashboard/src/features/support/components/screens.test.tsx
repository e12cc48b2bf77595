import { beforeEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import { mockFetch, type Call } from '../../../../test-utils/fetch';
import userEvent from '@testing-library/user-event';
import { render } from '../../../../test-utils/render';
import { live } from '@/features/live/socket';
import { resetSupport, support } from '../stores/support';
import { applyNewMessage, applySessionResolved } from '../stores/events';
import { AgentDashboard, HeaderCounters } from './AgentDashboard';
import { Inbox } from './Inbox';

const session = (id: string, extra: Record<string, unknown> = {}) => ({ _id: id, title: `Chat ${id}`, status: 'active', ...extra });

beforeEach(() => {
  resetSupport();
  support.botId = 'b1';
  support.me = 'me';
});

describe('agent dashboard', () => {
  it('shows honest figures, empty texts and no chat before anything happens', () => {
    render(
      <>
        <HeaderCounters />
        <AgentDashboard botName="Shop helper" />
      </>,
    );
    expect(within(screen.getByTestId('tile-Avg Response')).getByText('—')).toBeInTheDocument();
    expect(within(screen.getByTestId('tile-Satisfaction')).getByText('No ratings yet')).toBeInTheDocument();
    expect(screen.getByText('No active support sessions')).toBeInTheDocument();
    expect(screen.getByText('Sessions will appear here when customers request human support')).toBeInTheDocument();
    expect(screen.getByText('No Session Selected')).toBeInTheDocument();
    expect(screen.getByText('Select a session from the queue to start helping customers')).toBeInTheDocument();
    expect(screen.queryByText('1.2s')).toBeNull();
    expect(screen.queryByText('4.8')).toBeNull();
  });

  it('shows real figures, the urgent queue and my sessions with their markers', () => {
    support.stats = { waiting: 1, activeChats: 2, resolvedToday: 3, totalResolved: 9, averageResponseSeconds: 42, answeredHandoffs: 4, satisfaction: 4.25, ratedSessions: 4 };
    support.queue = [{ sessionId: 'q1', session: session('q1', { needsHumanSupport: true }), customerMessage: 'help me', customerInfo: { name: 'Vic', email: 'vic@x' }, timestamp: new Date().toISOString() }];
    support.mine = [session('m1', { assignedAgent: { _id: 'me' }, hasNewMessage: true }), session('m2', { assignedAgent: { _id: 'other' } })];
    support.joined = ['m2'];
    support.open = [session('o1'), session('m2')];
    render(
      <>
        <HeaderCounters />
        <AgentDashboard botName="Shop helper" />
      </>,
    );
    expect(within(screen.getByTestId('tile-Avg Response')).getByText('42s')).toBeInTheDocument();
    expect(within(screen.getByTestId('tile-Satisfaction')).getByText('4.3/5')).toBeInTheDocument();
    expect(within(screen.getByTestId('counter-In Queue')).getByText('1')).toBeInTheDocument();
    expect(screen.getByText('Urgent Support Requests (1)')).toBeInTheDocument();
    expect(screen.getByText('Urgent: Customer Requested Help')).toBeInTheDocument();
    expect(screen.getByText('My Active Sessions (2)')).toBeInTheDocument();
    expect(screen.getAllByText('Connected')).toHaveLength(1);
    expect(screen.getByLabelText('New message')).toBeInTheDocument();
    // Joined sessions leave the all-sessions list.
    expect(screen.getByText('All Active Sessions (1)')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Join Chat' })).toHaveLength(1);
    // Spec 2's order of the sections.
    const sections = screen.getAllByRole('heading', { level: 5 }).map((h) => h.textContent?.replace(/ \(\d+\)$/, ''));
    expect(sections).toEqual(['All Active Sessions', 'Urgent Support Requests', 'My Active Sessions']);
  });

  it('the open chat: customer, title fallback, messages by side, typing, counter', async () => {
    support.mine = [session('m1', { title: null, customerName: 'Vic', customerEmail: 'vic@x', assignedAgent: { _id: 'me' } })];
    support.selectedId = 'm1';
    support.messages = [
      { _id: 'a', seq: 1, role: 'user', content: 'hello', timestamp: '2026-01-01T00:00:01Z' },
      { _id: 'b', seq: 2, role: 'agent', content: 'hi', senderName: 'Ann', timestamp: '2026-01-01T00:00:02Z' },
      { _id: 'c', seq: 3, role: 'system', content: 'Ann joined the conversation', timestamp: '2026-01-01T00:00:03Z' },
    ];
    support.typing = { m1: true };
    render(<AgentDashboard botName="Shop helper" />);
    expect(screen.getByRole('heading', { name: 'Vic' })).toBeInTheDocument();
    expect(screen.getByText('Customer Chat')).toBeInTheDocument();
    expect(screen.getByText('vic@x')).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'Ann' })).toHaveTextContent('hi');
    expect(screen.getByRole('article', { name: 'Customer' })).toHaveTextContent('hello');
    expect(screen.getByRole('article', { name: 'System' })).toHaveTextContent('Ann joined the conversation');
    expect(screen.getByRole('status', { name: 'Customer is typing...' })).toBeInTheDocument();
    expect(screen.getByText('Press Enter to send, Shift + Enter for new line')).toBeInTheDocument();
    expect(screen.getByText('0/500')).toBeInTheDocument();
    // Not connected in a unit test: the footer says so.
    expect(screen.getAllByText('Disconnected').length).toBeGreaterThan(0);
    await userEvent.click(screen.getByRole('button', { name: 'Resolve' }));
    expect(await screen.findByText('How would you rate this conversation?')).toBeInTheDocument();
  });
});

describe('a chat resolved by another agent', () => {
  it('stays open, read-only, with the note, until closed', async () => {
    support.mine = [session('m1', { customerName: 'Vic', assignedAgent: { _id: 'me' } })];
    support.selectedId = 'm1';
    render(<AgentDashboard botName="Shop helper" />);
    expect(screen.getByRole('button', { name: 'Resolve' })).toBeInTheDocument();
    applySessionResolved(support, { sessionId: 'm1', resolvedBy: 'Ann' });
    applyNewMessage(support, { sessionId: 'm1', message: { _id: 'n', seq: 9, role: 'system', content: 'Session resolved by Ann', timestamp: '2026-01-01T00:00:09Z' } });
    expect(await screen.findByRole('article', { name: 'System' })).toHaveTextContent('Session resolved by Ann');
    expect(screen.getByRole('heading', { name: 'Vic' })).toBeInTheDocument();
    expect(screen.getByText('This conversation is resolved')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resolve' })).toBeNull();
    expect(screen.queryByPlaceholderText('Type your response...')).toBeNull();
    expect(support.mine).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Close chat' }));
    expect(await screen.findByText('No Session Selected')).toBeInTheDocument();
    expect(support.closed).toBeNull();
  });
});

describe('composer per conversation', () => {
  it('a reply half-written for one customer is not left in the box for the next', async () => {
    support.mine = [session('m1', { customerName: 'Vic', assignedAgent: { _id: 'me' } }), session('m2', { customerName: 'Wes', assignedAgent: { _id: 'me' } })];
    support.selectedId = 'm1';
    live.connected = true;
    try {
      render(<AgentDashboard botName="Shop helper" />);
      const box = () => screen.getByPlaceholderText('Type your response...') as HTMLTextAreaElement;
      await userEvent.type(box(), 'Your refund for order 41 is on its way');
      expect(box().value).toBe('Your refund for order 41 is on its way');
      support.selectedId = 'm2';
      expect(await screen.findByRole('heading', { name: 'Wes' })).toBeInTheDocument();
      expect(box().value).toBe('');
    } finally {
      live.connected = false;
    }
  });
});

describe('inbox', () => {
  it('empty state, no queue panel without requests', () => {
    render(<Inbox botName="Shop helper" />);
    expect(screen.getByText('Select a conversation')).toBeInTheDocument();
    expect(screen.getByText('Choose a session from the sidebar to start chatting')).toBeInTheDocument();
    expect(screen.queryByText(/Support Queue/)).toBeNull();
  });

  it('queue with a count, header badges, human support suffix, take for a waiting session', () => {
    support.queue = [{ sessionId: 'w1', session: session('w1', { needsHumanSupport: true, title: '' }), customerMessage: '', customerInfo: {}, timestamp: new Date().toISOString() }];
    support.inbox = [
      session('w1', { needsHumanSupport: true, priority: 'high', status: 'pending' }),
      session('t1', { assignedAgent: { _id: 'me' }, hasNewMessage: true }),
    ];
    support.selectedId = 'w1';
    const { unmount } = render(<Inbox botName="Shop helper" />);
    expect(screen.getByText('Support Queue (1)')).toBeInTheDocument();
    expect(screen.getByText('Customer Support Request')).toBeInTheDocument();
    expect(screen.getByText('Requested human support')).toBeInTheDocument();
    expect(screen.getByText('Needs Human Support')).toBeInTheDocument();
    expect(screen.getByText('High', { selector: '.mantine-Badge-label' })).toBeInTheDocument();
    expect(screen.getByText('Pending')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Take Session' })).toBeInTheDocument();
    expect(screen.getByTestId('inbox-bot-name')).toHaveTextContent(/^Shop helper$/);
    expect(screen.getByLabelText('New message')).toBeInTheDocument();
    unmount();

    support.selectedId = 't1';
    support.live = ['t1'];
    render(<Inbox botName="Shop helper" />);
    expect(screen.getByTestId('inbox-bot-name')).toHaveTextContent('Shop helper - Human Support');
    expect(screen.getByText('Live Session')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Take Session' })).toBeNull();
  });

  it('pins and stars the open conversation; the pinned one leads the list; a refusal puts it back', async () => {
    const puts: Call[] = [];
    mockFetch({
      'PUT /api/chat/session/t2': (c: Call) => {
        puts.push(c);
        return { body: { session: session('t2', { ...(support.inbox[1] ?? {}), isPinned: true }) } };
      },
      'PUT /api/chat/session/t1': { status: 403, body: { error: { code: 'forbidden', message: 'Your role does not allow pinning or starring conversations' } } },
    });
    support.inbox = [session('t1'), session('t2', { isStarred: true })];
    support.selectedId = 't2';
    const u = userEvent.setup();
    render(<Inbox botName="Shop helper" />);
    const list = () => within(screen.getByRole('region', { name: 'Conversations' }));
    expect(list().getByLabelText('Starred')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Unstar conversation' })).toHaveAttribute('aria-pressed', 'true');
    await u.click(screen.getByRole('button', { name: 'Pin conversation' }));
    await waitFor(() => expect(puts.map((c) => c.body)).toEqual([{ pinned: true }]));
    expect(await screen.findByRole('button', { name: 'Unpin conversation' })).toHaveAttribute('aria-pressed', 'true');
    // Pinned first in the list.
    const titles = list().getAllByRole('button', { name: /^Chat t/ }).map((b) => b.textContent);
    expect(titles[0]).toMatch(/^Chat t2/);

    support.selectedId = 't1';
    await u.click(await screen.findByRole('button', { name: 'Pin conversation' }));
    await screen.findByText('Your role does not allow pinning or starring conversations');
    expect(screen.getByRole('button', { name: 'Pin conversation' })).toHaveAttribute('aria-pressed', 'false');
    expect(support.inbox.find((x) => x._id === 't1')?.isPinned).toBe(false);
  });

  it('no marks to set for a viewer', () => {
    support.inbox = [session('t1', { isPinned: true })];
    support.selectedId = 't1';
    support.queue = [{ sessionId: 'w1', session: session('w1', { needsHumanSupport: true }), customerMessage: 'help', customerInfo: {}, timestamp: new Date().toISOString() }];
    render(<Inbox botName="Shop helper" canMark={false} canHandle={false} canEdit={false} />);
    expect(screen.queryByRole('button', { name: /Pin conversation|Unpin conversation/ })).toBeNull();
    // The queue is shown, but nothing the server would refuse is offered.
    expect(screen.getByRole('region', { name: 'Support Queue' })).toHaveTextContent('help');
    expect(screen.queryByRole('button', { name: /^Take/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Delete/ })).toBeNull();
    expect(within(screen.getByRole('region', { name: 'Conversations' })).getByLabelText('Pinned')).toBeInTheDocument();
  });
});
