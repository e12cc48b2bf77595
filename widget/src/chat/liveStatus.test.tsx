import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import type { Transport } from './controller';
import { OFFLINE_RECHECK_MS, fetchStatus } from './liveStatus';

/** The theme call answers with whatever status the "dashboard" set last. */
function server(initial: 'active' | 'inactive') {
  const bot = { status: initial };
  const fetch = vi.fn(async () => Response.json({ name: 'Acme Help', status: bot.status }));
  vi.stubGlobal('fetch', fetch);
  const transport: Transport = {
    // While the bot is off the server refuses the message, as engine/src/chat/service.rs does.
    startConversation: vi.fn(async () =>
      bot.status === 'inactive'
        ? { ok: false, status: 409, body: { error: { code: 'conflict', message: 'This assistant is offline right now' } } }
        : { ok: false, status: 500, body: {} },
    ),
    connect: vi.fn(),
  };
  return { bot, fetch, transport };
}

const settle = () =>
  act(async () => {
    await vi.advanceTimersByTimeAsync(10);
  });

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: false });
  localStorage.clear();
});
afterEach(() => vi.useRealTimers());

describe("the chat follows the bot's status while open", () => {
  it('a refused message on a bot switched off meanwhile shows the offline state', async () => {
    const s = server('active');
    render(<App search="?id=bot-1" transport={s.transport} />);
    await settle();
    expect(screen.getByLabelText('Type your message')).toBeInTheDocument();
    const calls = s.fetch.mock.calls.length;

    s.bot.status = 'inactive'; // the owner switches it off
    fireEvent.input(screen.getByLabelText('Type your message'), { target: { value: 'Hello?' } });
    await act(async () => {
      fireEvent.keyDown(screen.getByLabelText('Type your message'), { key: 'Enter' });
      await vi.advanceTimersByTimeAsync(10);
    });
    await settle(); // the status check's answer
    expect(screen.getByRole('heading', { name: 'Acme Help is offline' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Type your message')).toBeNull();
    expect(s.fetch.mock.calls.length).toBe(calls + 1);
  });

  it('an offline page comes back when the bot is switched on, and an active page does not poll', async () => {
    const s = server('inactive');
    render(<App search="?id=bot-1" transport={s.transport} />);
    await settle();
    expect(screen.getByRole('heading', { name: 'Acme Help is offline' })).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(OFFLINE_RECHECK_MS);
    });
    expect(screen.getByRole('heading', { name: 'Acme Help is offline' })).toBeInTheDocument();

    s.bot.status = 'active'; // the owner switches it back on
    await act(async () => {
      await vi.advanceTimersByTimeAsync(OFFLINE_RECHECK_MS);
    });
    expect(screen.queryByRole('heading', { name: 'Acme Help is offline' })).toBeNull();
    expect(screen.getByLabelText('Type your message')).toBeInTheDocument();

    const calls = s.fetch.mock.calls.length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(OFFLINE_RECHECK_MS * 5);
    });
    expect(s.fetch.mock.calls.length).toBe(calls);
  });

  it('switched off and on again, the page shows the same conversation, also with history off', async () => {
    const bot = { status: 'active' };
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ name: 'Acme Help', status: bot.status, enableHistory: false, typingDelay: 0 })));
    const transport: Transport = {
      startConversation: vi.fn(async (body: Record<string, unknown>) => ({
        ok: true,
        status: 200,
        body: { sessionId: 's1', visitorToken: 't1', message: { _id: 'u1', seq: 1, role: 'user', content: String(body.message) }, reply: { _id: 'b1', seq: 2, role: 'bot', content: 'We ship in 3 days.' } },
      })),
      // While the bot is off the live channel refuses the message, as the engine does.
      connect: vi.fn(() => ({
        on: () => {},
        emit: async (event: string) =>
          event === 'send-message' && bot.status === 'inactive' ? { success: false, error: 'This assistant is offline right now' } : { success: true, messages: [], session: {} },
        close: () => {},
      })),
    };
    render(<App search="?id=bot-1" transport={transport} />);
    await settle();
    const send = async (text: string) => {
      fireEvent.input(screen.getByLabelText('Type your message'), { target: { value: text } });
      await act(async () => {
        fireEvent.keyDown(screen.getByLabelText('Type your message'), { key: 'Enter' });
        await vi.advanceTimersByTimeAsync(10);
      });
    };
    await send('Do you ship abroad?');
    expect(screen.getByText('We ship in 3 days.')).toBeInTheDocument();

    bot.status = 'inactive';
    await send('Hello?');
    await settle();
    expect(screen.getByRole('heading', { name: 'Acme Help is offline' })).toBeInTheDocument();
    bot.status = 'active';
    await act(async () => {
      await vi.advanceTimersByTimeAsync(OFFLINE_RECHECK_MS);
    });
    expect(screen.queryByRole('heading', { name: 'Acme Help is offline' })).toBeNull();
    expect(screen.getByText('We ship in 3 days.')).toBeInTheDocument();
    expect(transport.startConversation).toHaveBeenCalledTimes(1);
  });

  it('a status that cannot be read changes nothing', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('oops', { status: 500 })));
    expect(await fetchStatus('bot-1')).toBeNull();
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new Error('offline network'))));
    expect(await fetchStatus('bot-1')).toBeNull();
    vi.stubGlobal('fetch', vi.fn(async () => Response.json({ status: 'inactive' })));
    expect(await fetchStatus('bot-1')).toBe('inactive');
  });
});
