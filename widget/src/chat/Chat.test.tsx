import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import type { Live, Transport } from './controller';
import { LoadingScreen } from './LoadingScreen';

type Handler = (p: Record<string, unknown>) => void;

/** A server stand-in: the first message answered over "HTTP", then a live channel the test drives. */
function fakeServer(theme: Record<string, unknown> = {}) {
  const handlers = new Map<string, Handler[]>();
  const emitted: [string, Record<string, unknown>][] = [];
  let seq = 0;
  const msg = (role: string, content: string, extra: Record<string, unknown> = {}) => ({ _id: `m${++seq}`, seq, role, content, ...extra });
  let reconnected: (() => void) | null = null;
  let refused: (() => void) | undefined;
  const live: Live = {
    on: (event, h) => handlers.set(event, [...(handlers.get(event) ?? []), h]),
    emit: async (event, payload) => {
      emitted.push([event, payload as Record<string, unknown>]);
      if (event === 'send-message') {
        if (server.unanswered > 0) {
          server.unanswered--;
          throw new Error('operation has timed out');
        }
        const text = String((payload as { message: string }).message);
        const clientId = (payload as { clientId?: string }).clientId;
        const earlier = clientId ? server.savedByClientId.get(clientId) : undefined;
        if (earlier) return { success: true, agentConnected: false, message: earlier };
        if (server.acksLost > 0) {
          // Saved, but the ack (and the echo) never reach the page.
          server.acksLost--;
          if (clientId) server.savedByClientId.set(clientId, msg('user', text));
          throw new Error('operation has timed out');
        }
        if (text.length > 500) return { success: false, error: 'Message is too long (501 characters; the limit is 500)' };
        const saved = msg('user', text);
        server.push('new-message', { sessionId: 's1', message: saved });
        return { success: true, agentConnected: false, message: saved };
      }
      if (event === 'join-session') {
        if (server.joinsBusy > 0) {
          server.joinsBusy--;
          return { success: false, error: 'Server busy, please retry' };
        }
        return server.joinAck;
      }
      return { success: true, messages: [], session: {} };
    },
    close: () => {},
  };
  const transport: Transport = {
    startConversation: vi.fn(async (body) => ({
      ok: true,
      status: 200,
      body: { sessionId: 's1', visitorToken: 't1', message: msg('user', String(body.message)), reply: msg('bot', 'We ship in 3 days.', { sources: [{ title: 'Shipping FAQ' }] }) },
    })),
    connect: vi.fn((_token: string, onReconnect: () => void, onRefused?: () => void) => {
      reconnected = onReconnect;
      refused = onRefused;
      return live;
    }),
  };
  const server = {
    transport,
    emitted,
    msg,
    /** What `join-session` answers: the messages and the session as the server has them. */
    joinAck: { success: true, messages: [], session: {} } as Record<string, unknown>,
    /** How many coming `send-message`s are saved but their ack is lost. */
    acksLost: 0,
    /** What each client id was saved as (a resend gets it back, as the server does). */
    savedByClientId: new Map<string, ReturnType<typeof msg>>(),
    /** How many coming `join-session`s the server is too busy for. */
    joinsBusy: 0,
    /** How many coming `send-message`s get no answer (the ack times out). */
    unanswered: 0,
    /** The socket came back: the chat joins again and takes what it missed. */
    async reconnect() {
      await act(async () => {
        reconnected?.();
        await vi.advanceTimersByTimeAsync(1);
      });
    },
    /** The server turned the socket away for good (an expired visitor token). */
    refuse() {
      act(() => refused?.());
    },
    push(event: string, payload: Record<string, unknown>) {
      // The server's numbering goes on from any message a test makes up.
      const pushedSeq = (payload.message as { seq?: unknown } | undefined)?.seq;
      if (typeof pushedSeq === 'number' && pushedSeq > seq) seq = pushedSeq;
      act(() => (handlers.get(event) ?? []).forEach((h) => h(payload)));
    },
  };
  vi.stubGlobal(
    'fetch',
    vi.fn(async () =>
      // No typing delay unless a test sets one: replies show as soon as they come.
      Response.json({ name: 'Acme Help', welcomeMessage: 'Hi! Ask me anything.', customQuestions: ['Do you ship abroad?'], typingDelay: 0, ...theme }),
    ),
  );
  return server;
}

async function openChat(theme: Record<string, unknown> = {}) {
  const server = fakeServer(theme);
  render(<App search="?id=bot-1" transport={server.transport} />);
  await act(async () => {
    await vi.advanceTimersByTimeAsync(10);
  });
  return server;
}

const box = () => screen.getByLabelText('Type your message') as HTMLTextAreaElement;
// Typing fires `input` events; the page runs on preact/compat, whose onChange listens to those
// (as browsers fire them per keystroke), not to the `change` fired when a field loses focus.
async function type(text: string, key: { shiftKey?: boolean } = {}) {
  fireEvent.input(box(), { target: { value: text } });
  await act(async () => {
    fireEvent.keyDown(box(), { key: 'Enter', ...key });
    await vi.advanceTimersByTimeAsync(1);
  });
}

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: false });
  localStorage.clear();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the visitor chat', () => {
  it('rotates its loading text every 1.5 s and stops the bar at 95%', async () => {
    render(<LoadingScreen />);
    expect(screen.getByText('Connecting to your assistant...')).toBeInTheDocument();
    act(() => void vi.advanceTimersByTime(1500));
    expect(screen.getByText('Loading the conversation...')).toBeInTheDocument();
    act(() => void vi.advanceTimersByTime(60_000));
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '95');
  });

  it('sends on Enter, not on Shift+Enter, never empty, and shows the answer with its source', async () => {
    const server = await openChat();
    expect(screen.getByRole('button', { name: 'Do you ship abroad?' })).toBeInTheDocument();
    await type('   ');
    expect(server.transport.startConversation).not.toHaveBeenCalled();
    await type('How fast do you ship?', { shiftKey: true });
    expect(server.transport.startConversation).not.toHaveBeenCalled();
    await type('How fast do you ship?');
    expect(server.transport.startConversation).toHaveBeenCalledWith({ botId: 'bot-1', message: 'How fast do you ship?', clientId: expect.any(String) });
    expect(screen.getByRole('article', { name: 'You' })).toHaveTextContent('How fast do you ship?');
    const answers = screen.getAllByRole('article', { name: 'Acme Help' });
    expect(answers.at(-1)).toHaveTextContent('We ship in 3 days.');
    expect(screen.getByRole('list', { name: 'Sources' })).toHaveTextContent('Shipping FAQ');
    expect(screen.queryByRole('button', { name: 'Do you ship abroad?' })).toBeNull();
  });

  it("shows a not-sure reply's did-you-mean chips; a click asks that question, and older chips stop asking", async () => {
    const server = await openChat();
    await type('How fast do you ship?');
    await type('can I pay with amex');
    const unsure = server.msg('bot', "I'm not sure I understood — did you mean:", {
      suggestions: ['Which payment methods do you accept?', 'Do you offer gift wrapping?'],
    });
    server.push('new-message', { sessionId: 's1', message: unsure });
    const chips = screen.getByRole('group', { name: 'Did you mean' });
    expect(chips).toHaveClass('parley-suggestions');
    expect(screen.getAllByRole('article', { name: 'Acme Help' }).at(-1)).toContainElement(chips);
    const chip = screen.getByRole('button', { name: 'Which payment methods do you accept?' });
    expect(chip).toBeEnabled();
    await act(async () => {
      fireEvent.click(chip);
      await vi.advanceTimersByTimeAsync(1);
    });
    const sent = server.emitted.filter(([e]) => e === 'send-message').map(([, p]) => p.message);
    expect(sent).toEqual(['can I pay with amex', 'Which payment methods do you accept?']);
    expect(screen.getAllByRole('article', { name: 'You' }).at(-1)).toHaveTextContent('Which payment methods do you accept?');
    // The visitor moved on: the old chips stay as a record but no longer ask.
    expect(screen.getByRole('button', { name: 'Do you offer gift wrapping?' })).toBeDisabled();
    server.push('new-message', { sessionId: 's1', message: server.msg('bot', 'Visa, Mastercard and Amex.') });
    expect(screen.getByRole('button', { name: 'Which payment methods do you accept?' })).toBeDisabled();
    expect(screen.getAllByRole('group', { name: 'Did you mean' })).toHaveLength(1);
  });

  it('rotates a thinking phrase every 2 s while the reply streams in, then shows it whole', async () => {
    const server = await openChat();
    await type('first');
    await type('second question');
    const status = screen.getByRole('status', { name: 'Assistant is typing' });
    const first = status.textContent;
    act(() => void vi.advanceTimersByTime(2000));
    expect(screen.getByRole('status', { name: 'Assistant is typing' }).textContent).not.toBe(first);
    await type('not while pending');
    expect(server.emitted.filter(([e]) => e === 'send-message')).toHaveLength(1);
    server.push('message-delta', { sessionId: 's1', messageId: 'r1', delta: 'Part one, ' });
    server.push('message-delta', { sessionId: 's1', messageId: 'r1', delta: 'part two.' });
    expect(screen.getAllByRole('article', { name: 'Acme Help' }).at(-1)).toHaveTextContent('Part one, part two.');
    // The saved reply has its own id: it replaces the streamed bubble.
    server.push('new-message', { sessionId: 's1', message: { _id: 'saved-r1', role: 'bot', content: 'Part one, part two.' } });
    expect(screen.queryByRole('status', { name: 'Assistant is typing' })).toBeNull();
    expect(screen.getAllByText('Part one, part two.')).toHaveLength(1);
  });

  it('offers a human after 10 s, then waits, connects, and returns to the bot when resolved', async () => {
    const server = await openChat({ handoverMessage: 'A person will take it from here.', responseTime: 'about 3 minutes' });
    expect(screen.queryByRole('button', { name: 'Talk to a human' })).toBeNull();
    act(() => void vi.advanceTimersByTime(10_000));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Talk to a human' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(screen.getByRole('form', { name: 'Talk to a human' })).toHaveTextContent('A person will take it from here.');
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: 'Vic' } });
    fireEvent.input(screen.getByLabelText('Email'), { target: { value: 'vic@example.com' } });
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Request Support' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    const request = server.emitted.find(([e]) => e === 'request-human-support');
    expect(request?.[1]).toMatchObject({ sessionId: 's1', customerInfo: { name: 'Vic', email: 'vic@example.com' } });
    expect(screen.getByText('Connecting you with a human agent...')).toBeInTheDocument();
    expect(screen.getByText('Estimated wait time: about 3 minutes')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Talk to a human' })).toBeNull();

    server.push('agent-joined', { agentName: 'Ann', agentId: 'a1', message: 'Ann joined' });
    expect(screen.getByRole('heading', { name: 'Ann' })).toBeInTheDocument();
    expect(screen.getByText('Human agent')).toBeInTheDocument();
    server.push('agent-typing', { isTyping: true });
    expect(screen.getByRole('status', { name: 'Agent is typing' })).toBeInTheDocument();
    server.push('new-message', { sessionId: 's1', message: { _id: 'a1m', role: 'agent', content: 'Hi, Ann here.', senderName: 'Ann' } });
    expect(screen.getByRole('article', { name: 'Ann' })).toHaveTextContent('Hi, Ann here.');
    expect(screen.queryByRole('status', { name: 'Agent is typing' })).toBeNull();
    fireEvent.input(box(), { target: { value: 'thanks' } });
    expect(server.emitted.at(-1)).toEqual(['typing', { sessionId: 's1', isTyping: true }]);

    server.push('new-message', { sessionId: 's1', message: { _id: 'sys1', role: 'system', content: 'Session resolved by Ann' } });
    server.push('session-resolved', { sessionId: 's1', resolvedBy: 'Ann' });
    expect(screen.getByRole('article', { name: 'System' })).toHaveTextContent('resolved');
    expect(screen.getByRole('heading', { name: 'Acme Help' })).toBeInTheDocument();
  });

  it('offers a human at once when a live reply could not help', async () => {
    const server = await openChat();
    await type('hello');
    expect(screen.queryByRole('button', { name: 'Talk to a human' })).toBeNull();
    server.push('handoff-offered', { sessionId: 'other' });
    expect(screen.queryByRole('button', { name: 'Talk to a human' })).toBeNull();
    server.push('handoff-offered', { sessionId: 's1' });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(screen.getByRole('button', { name: 'Talk to a human' })).toBeInTheDocument();
  });

  it('offers a human at once when the first reply could not help', async () => {
    const server = await openChat();
    const start = server.transport.startConversation as ReturnType<typeof vi.fn>;
    start.mockImplementationOnce(async (body: Record<string, unknown>) => ({
      ok: true,
      status: 200,
      body: { sessionId: 's1', visitorToken: 't1', message: server.msg('user', String(body.message)), reply: server.msg('bot', "I don't know that one."), offerHandoff: true },
    }));
    await type('what is the meaning of life?');
    expect(screen.getByRole('button', { name: 'Talk to a human' })).toBeInTheDocument();
  });

  it('outside business hours says when the team is back and still takes the details', async () => {
    const server = await openChat({ agentsOnline: false, businessHours: 'Mon-Fri 9:00-17:00', supportEmail: 'help@acme.example' });
    act(() => void vi.advanceTimersByTime(10_000));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Talk to a human' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    const form = screen.getByRole('form', { name: 'Talk to a human' });
    expect(form).toHaveTextContent("Our team is away right now. We're available Mon-Fri 9:00-17:00.");
    expect(screen.getByRole('link', { name: 'Email us at help@acme.example' })).toHaveAttribute('href', 'mailto:help@acme.example');
    fireEvent.input(screen.getByLabelText('Email'), { target: { value: 'vic@example.com' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Request Support' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    const request = server.emitted.find(([e]) => e === 'request-human-support');
    expect(request?.[1]).toMatchObject({ customerInfo: { email: 'vic@example.com' } });
    expect(screen.getByText('Our team is away right now')).toBeInTheDocument();
    expect(screen.getByText("We're available Mon-Fri 9:00-17:00; we'll reply as soon as we're back.")).toBeInTheDocument();
  });

  it('shows the typing for the typing delay before a quicker reply', async () => {
    await openChat({ typingDelay: 1200 });
    await type('How fast do you ship?');
    expect(screen.getByRole('status', { name: 'Assistant is typing' })).toBeInTheDocument();
    expect(screen.getAllByRole('article', { name: 'Acme Help' })).toHaveLength(1); // the welcome only
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1100);
    });
    expect(screen.getAllByRole('article', { name: 'Acme Help' })).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(150);
    });
    expect(screen.getAllByRole('article', { name: 'Acme Help' }).at(-1)).toHaveTextContent('We ship in 3 days.');
    expect(screen.queryByRole('status', { name: 'Assistant is typing' })).toBeNull();
  });

  it("draws the owner's look, avatar, suggestions, footer and custom CSS", async () => {
    await openChat({
      borderRadius: 20,
      shadowIntensity: 'heavy',
      animationStyle: 'fade',
      botAvatar: 'https://cdn.example/a.png',
      enableQuickReplies: false,
      enableFAQ: true,
      faqQuestions: ['Where is my order?'],
      companyName: 'Acme',
      supportEmail: 'help@acme.example',
      showBranding: false,
      customCSS: '.parley-header { letter-spacing: 3px }',
    });
    const chat = document.querySelector('.parley-chat') as HTMLElement;
    expect(chat.style.getPropertyValue('--parley-radius')).toBe('20px');
    expect(chat.style.getPropertyValue('--parley-shadow')).toBe('0 14px 36px rgba(0,0,0,0.32)');
    expect(chat.style.getPropertyValue('--parley-animation')).toBe('parley-fade 0.25s ease-out');
    expect(document.querySelector('.parley-header img')).toHaveAttribute('src', 'https://cdn.example/a.png');
    expect(screen.queryByRole('button', { name: 'Do you ship abroad?' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Where is my order?' })).toBeInTheDocument();
    expect(screen.getByText('Chat with Acme')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Email us' })).toHaveAttribute('href', 'mailto:help@acme.example');
    expect(screen.queryByText('Powered by Parley')).toBeNull();
    expect(document.querySelector('style[data-parley-custom-css]')?.textContent).toBe(
      '[data-parley-chat] .parley-header { letter-spacing: 3px !important }',
    );
  });

  it('sends nothing over the maximum and keeps the text to shorten', async () => {
    const server = await openChat({ maxMessageLength: 300 });
    await type('hello');
    const sends = () => server.emitted.filter(([e]) => e === 'send-message').length;
    server.push('new-message', { sessionId: 's1', message: { _id: 'b1', role: 'bot', content: 'Hi.' } });
    const before = sends();
    await type('x'.repeat(301));
    expect(screen.getByText('301/300')).toHaveClass('over');
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();
    expect(sends()).toBe(before);
    expect(box().value).toHaveLength(301);
    await type('x'.repeat(300));
    expect(sends()).toBe(before + 1);
  });

  it("shows the server's refusal of a message as an error", async () => {
    await openChat({ maxMessageLength: 2000 });
    await type('hello');
    // The fake server, like a bot whose Max chat text size is 500, refuses past 500.
    await type('x'.repeat(501));
    expect(screen.getByRole('alert')).toHaveTextContent('Message is too long (501 characters; the limit is 500)');
  });

  it('says a refusal once though it comes as the failed ack and as an error event', async () => {
    const server = await openChat({ maxMessageLength: 2000 });
    await type('hello');
    await type('x'.repeat(501));
    server.push('error', { message: 'Message is too long (501 characters; the limit is 500)' });
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });

  it('keeps a message that got no answer, marked not sent, and sends it again on Retry', async () => {
    const server = await openChat();
    await type('hello');
    server.unanswered = 1;
    await type('where is my parcel?');
    const bubble = screen.getByText('where is my parcel?').closest('article')!;
    expect(bubble).toHaveClass('failed');
    expect(bubble).toHaveTextContent('Not sent.');
    expect(box().value).toBe('');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    const sent = server.emitted.filter(([e, p]) => e === 'send-message' && p.message === 'where is my parcel?');
    expect(sent).toHaveLength(2);
    // Sent again under its own id, so a first send that did arrive is not saved twice.
    expect(sent[0][1].clientId).toMatch(/^[0-9a-f]{32}$/);
    expect(sent[1][1].clientId).toBe(sent[0][1].clientId);
    server.push('new-message', { sessionId: 's1', message: server.msg('bot', 'It is on its way.') });
    await type('thanks');
    const thanks = server.emitted.find(([e, p]) => e === 'send-message' && p.message === 'thanks');
    expect(thanks).toBeDefined();
    expect(thanks![1].clientId).toMatch(/^[0-9a-f]{32}$/);
    expect(thanks![1].clientId).not.toBe(sent[0][1].clientId);
    // Once, in its place as the latest message, the server's copy.
    expect(screen.getAllByText('where is my parcel?')).toHaveLength(1);
    expect(screen.getByText('where is my parcel?').closest('article')).not.toHaveClass('failed');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('a message typed again instead of Retry is its own bubble; the one not sent stays marked', async () => {
    const server = await openChat();
    await type('hello');
    server.unanswered = 1;
    await type('hi');
    await type('hi');
    const bubbles = screen.getAllByText('hi').map((t) => t.closest('article')!);
    expect(bubbles).toHaveLength(2);
    expect(bubbles[0]).toHaveClass('failed');
    expect(bubbles[1]).not.toHaveClass('failed');
    expect(bubbles[1]).not.toHaveClass('sending');
    expect(screen.getAllByRole('button', { name: 'Retry' })).toHaveLength(1);
  });

  it('a Retry of a message that had arrived and been answered does not wait for another reply', async () => {
    const server = await openChat();
    await type('hello');
    server.acksLost = 1;
    await type('is it in stock?');
    // Its reply came while the page was away; the page has it but not its own message's copy.
    server.push('new-message', { sessionId: 's1', message: server.msg('bot', 'Yes, 4 left.') });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(screen.getAllByText('is it in stock?')).toHaveLength(1);
    expect(screen.queryByRole('status', { name: 'Assistant is typing' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Send message' })).toBeInTheDocument();
    fireEvent.input(box(), { target: { value: 'thanks' } });
    expect(screen.getByRole('button', { name: 'Send message' })).toBeEnabled();
  });

  it('drops the not-sent mark when the rejoin shows the message did arrive', async () => {
    const server = await openChat();
    await type('hello');
    server.unanswered = 1;
    await type('my order number is 1234');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    server.joinAck = { success: true, messages: [server.msg('user', 'my order number is 1234')], session: {} };
    await server.reconnect();
    expect(screen.getAllByText('my order number is 1234')).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('keeps a first message the server could not be reached for, and starts the conversation on Retry', async () => {
    const server = await openChat();
    vi.mocked(server.transport.startConversation).mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await type('do you ship abroad?');
    expect(screen.getByText('do you ship abroad?').closest('article')).toHaveClass('failed');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(server.transport.startConversation).toHaveBeenCalledTimes(2);
    // The same id both times: had the first call reached the server, it answers once.
    const [first, again] = vi.mocked(server.transport.startConversation).mock.calls.map(([body]) => body.clientId);
    expect(typeof first).toBe('string');
    expect(again).toBe(first);
    expect(screen.getAllByText('do you ship abroad?')).toHaveLength(1);
    expect(screen.getByText('We ship in 3 days.')).toBeInTheDocument();
  });

  it('joins again, backing off, when the server was too busy to let the conversation join', async () => {
    const server = await openChat();
    server.joinsBusy = 2;
    await type('hello');
    const joins = () => server.emitted.filter(([e]) => e === 'join-session').length;
    expect(joins()).toBe(1);
    server.joinAck = { success: true, messages: [server.msg('agent', 'Hi, Sam here.', { senderName: 'Sam' })], session: {} };
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });
    expect(joins()).toBe(2);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_990);
    });
    expect(joins()).toBe(2); // the second wait is twice the first
    await act(async () => {
      await vi.advanceTimersByTimeAsync(20);
    });
    expect(joins()).toBe(3);
    expect(screen.getByText('Hi, Sam here.')).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(60_000);
    });
    expect(joins()).toBe(3);
  });

  it("forgets a conversation the rejoin is refused (deleted while away): the next message starts another", async () => {
    const server = await openChat();
    await type('hello');
    server.joinAck = { success: false, error: 'Session not found' };
    await server.reconnect();
    await type('again');
    expect(server.transport.startConversation).toHaveBeenCalledTimes(2);
    expect(server.emitted.some(([e, p]) => e === 'send-message' && p.message === 'again')).toBe(false);
  });

  it('asks for a human only once no reply is pending', async () => {
    const server = await openChat();
    await type('hello');
    await type('and another thing');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_000);
    });
    expect(screen.getByRole('button', { name: 'Talk to a human' })).toBeDisabled();
    server.push('new-message', { sessionId: 's1', message: { _id: 'b2', role: 'bot', content: 'Here it is.' } });
    expect(screen.getByRole('button', { name: 'Talk to a human' })).toBeEnabled();
  });

  it('starts afresh when the server refuses the socket for good (an expired visitor token)', async () => {
    const server = await openChat();
    await type('hello');
    server.refuse();
    await type('again');
    expect(server.transport.startConversation).toHaveBeenCalledTimes(2);
  });

  it('tells an agent who joins mid-sentence that the visitor is typing', async () => {
    const server = await openChat();
    await type('hello');
    server.push('support-requested', { message: 'Connecting' });
    fireEvent.input(box(), { target: { value: 'while I wait, ' } });
    expect(server.emitted.some(([e]) => e === 'typing')).toBe(false);
    server.push('agent-joined', { agentName: 'Ann', agentId: 'a1', message: 'Ann joined' });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(server.emitted.at(-1)).toEqual(['typing', { sessionId: 's1', isTyping: true }]);
  });

  it("stops showing the agent's typing when nothing more comes from them", async () => {
    const server = await openChat();
    await type('hello');
    server.push('agent-joined', { agentName: 'Ann', agentId: 'a1', message: 'Ann joined' });
    server.push('agent-typing', { isTyping: true });
    expect(screen.getByRole('status', { name: 'Agent is typing' })).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_001);
    });
    expect(screen.queryByRole('status', { name: 'Agent is typing' })).toBeNull();
  });

  it('after a reconnect takes the mode from the server: a resolve missed while away returns to the bot', async () => {
    const server = await openChat();
    await type('hello');
    server.push('support-requested', { message: 'Connecting' });
    expect(screen.getByText('Connecting you with a human agent...')).toBeInTheDocument();
    // Until an agent takes it the bot still answers: its reply is awaited as usual.
    await type('still there?');
    expect(screen.getByRole('status', { name: 'Assistant is typing' })).toBeInTheDocument();
    server.push('new-message', { sessionId: 's1', message: { _id: 'b9', role: 'bot', content: 'An agent is on the way.' } });
    expect(screen.queryByRole('status', { name: 'Assistant is typing' })).toBeNull();
    // Resolved by an agent while the socket was down: only the rejoin tells.
    server.joinAck = { success: true, messages: [], session: { _id: 's1', status: 'resolved', needsHumanSupport: false, assignedAgent: null } };
    await server.reconnect();
    expect(screen.queryByText('Connecting you with a human agent...')).toBeNull();
    expect(screen.getByRole('heading', { name: 'Acme Help' })).toBeInTheDocument();
    // Taken while away: the agent's name is in the header.
    server.joinAck = { success: true, messages: [], session: { _id: 's1', status: 'active', needsHumanSupport: true, assignedAgent: { name: 'Ann' } } };
    await server.reconnect();
    expect(screen.getByRole('heading', { name: 'Ann' })).toBeInTheDocument();
    // Released by the team (the live `session-updated`): back to the bot.
    server.push('session-updated', { sessionId: 's1', session: { _id: 's1', status: 'active', needsHumanSupport: false, assignedAgent: null } });
    expect(screen.getByRole('heading', { name: 'Acme Help' })).toBeInTheDocument();
  });

  it('a reply saved while the socket was down ends the wait when the rejoin brings it', async () => {
    const server = await openChat();
    await type('first');
    server.push('new-message', { sessionId: 's1', message: { _id: 'b1', seq: 10, role: 'bot', content: 'One.' } });
    await type('second');
    expect(screen.getByRole('status', { name: 'Assistant is typing' })).toBeInTheDocument();
    server.joinAck = { success: true, messages: [{ _id: 'b2', seq: 12, role: 'bot', content: 'The missed reply.' }], session: {} };
    await server.reconnect();
    expect(server.emitted.at(-1)).toEqual(['join-session', { sessionId: 's1', afterSeq: 11 }]); // after 'second', seq 11
    expect(screen.getByText('The missed reply.')).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Assistant is typing' })).toBeNull();
    await type('third');
    expect(server.emitted.filter(([e]) => e === 'send-message').map(([, p]) => p.message)).toEqual(['second', 'third']);
  });

  it("shows an agent's edit of a message, and after a delete starts a new conversation", async () => {
    const server = await openChat();
    await type('hello');
    server.push('new-message', { sessionId: 's1', message: { _id: 'b1', role: 'bot', content: 'Returns take 5 days.' } });
    server.push('message-updated', { sessionId: 's1', message: { _id: 'b1', role: 'bot', content: 'Returns take 7 days.' } });
    expect(screen.getByText('Returns take 7 days.')).toBeInTheDocument();
    expect(screen.queryByText('Returns take 5 days.')).toBeNull();
    server.push('session-deleted', { sessionId: 's1' });
    await type('again');
    expect(server.transport.startConversation).toHaveBeenCalledTimes(2);
  });

  it('asks for contact details 2 s after more than 4 messages, and saves them', async () => {
    const server = await openChat();
    await type('one');
    await type('two');
    server.push('new-message', { sessionId: 's1', message: { _id: 'b2', role: 'bot', content: 'answer two' } });
    await type('three');
    server.push('new-message', { sessionId: 's1', message: { _id: 'b3', role: 'bot', content: 'answer three' } });
    expect(screen.queryByRole('form', { name: 'Get Better Support' })).toBeNull();
    act(() => void vi.advanceTimersByTime(2000));
    expect(screen.getByRole('form', { name: 'Get Better Support' })).toHaveTextContent('could you please share some details?');
    fireEvent.input(screen.getAllByLabelText('Email').at(-1)!, { target: { value: 'vic@example.com' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(server.emitted.find(([e]) => e === 'leave-details')?.[1]).toEqual({ sessionId: 's1', leadData: { email: 'vic@example.com' } });
    expect(screen.queryByRole('form', { name: 'Get Better Support' })).toBeNull();
  });

  it('keeps the conversation across a reload when history is on', async () => {
    localStorage.setItem('parley:chat:bot-1', JSON.stringify({ sessionId: 's1', visitorToken: 't1' }));
    const server = fakeServer();
    const emit = vi.fn(async () => ({ success: true, messages: [{ _id: 'old1', seq: 1, role: 'user', content: 'Earlier question' }], session: {} }));
    server.transport.connect = vi.fn(() => ({ on: () => {}, emit, close: () => {} }));
    render(<App search="?id=bot-1" transport={server.transport} />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(emit).toHaveBeenCalledWith('join-session', { sessionId: 's1' });
    expect(screen.getByRole('article', { name: 'You' })).toHaveTextContent('Earlier question');
  });

  it('keeps a saved conversation when the server cannot be reached, and forgets one it refuses', async () => {
    localStorage.setItem('parley:chat:bot-1', JSON.stringify({ sessionId: 's1', visitorToken: 't1' }));
    const server = fakeServer();
    let reconnected: () => void = () => {};
    let answer: () => Promise<Record<string, unknown>> = async () => {
      throw new Error('timeout');
    };
    const emit = vi.fn(async () => answer());
    server.transport.connect = vi.fn((_token: string, onReconnect: () => void) => {
      reconnected = onReconnect;
      return { on: () => {}, emit, close: () => {} };
    });
    const { unmount } = render(<App search="?id=bot-1" transport={server.transport} />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(localStorage.getItem('parley:chat:bot-1')).not.toBeNull();
    // Back up: the reconnect joins again and shows the conversation.
    answer = async () => ({ success: true, messages: [{ _id: 'old1', seq: 1, role: 'user', content: 'Earlier question' }], session: {} });
    await act(async () => {
      reconnected();
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(screen.getByRole('article', { name: 'You' })).toHaveTextContent('Earlier question');
    unmount();
    // Refused (deleted, or the token no longer opens it): forgotten.
    answer = async () => ({ success: false, error: 'Session not found' });
    render(<App search="?id=bot-1" transport={server.transport} />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10);
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(emit).toHaveBeenCalledTimes(3);
    expect(localStorage.getItem('parley:chat:bot-1')).toBeNull();
  });

  it('shows an offline state for an inactive assistant', async () => {
    await openChat({ status: 'inactive' });
    expect(screen.getByText('Acme Help is offline')).toBeInTheDocument();
    expect(screen.queryByLabelText('Type your message')).toBeNull();
  });
});
