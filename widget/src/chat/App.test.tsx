import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { DEFAULT_THEME, withDefaults } from './theme';

function stubFetch(impl: (url: string) => Promise<Response>) {
  const fn = vi.fn((input: RequestInfo | URL) => impl(String(input)));
  vi.stubGlobal('fetch', fn);
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  return fn;
}

describe('visitor chat page', () => {
  it("loads the bot's theme and shows its header and welcome message", async () => {
    const fetch = stubFetch(async () =>
      Response.json({ name: 'Acme Help', welcomeMessage: 'Hi! Ask me about orders.', primaryColour: '#ff0000' }),
    );
    render(<App search="?id=bot-1" />);
    expect(await screen.findByRole('heading', { name: 'Acme Help' })).toBeInTheDocument();
    expect(screen.getByText('Hi! Ask me about orders.')).toBeInTheDocument();
    expect(fetch).toHaveBeenCalledWith('/api/bots/bot-1/theme', expect.anything());
  });

  it('falls back to the defaults when the theme cannot be loaded', async () => {
    stubFetch(async () => new Response('{"error":{"code":"not_found","message":"Bot not found"}}', { status: 404 }));
    render(<App search="?id=missing" />);
    expect(await screen.findByRole('heading', { name: 'Chat Support' })).toBeInTheDocument();
    expect(screen.getByText('Hello, how can I help you today?')).toBeInTheDocument();
  });

  it('asks for a bot id when there is none', () => {
    const fetch = stubFetch(async () => Response.json({}));
    render(<App search="" />);
    expect(screen.getByText(/No assistant was chosen/)).toBeInTheDocument();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('fills missing theme fields with the spec defaults', () => {
    expect(withDefaults({ name: 'X', customQuestions: ['a', '', 3, 'b'] })).toEqual({
      ...DEFAULT_THEME,
      name: 'X',
      customQuestions: ['a', 'b'],
    });
    expect(withDefaults(null)).toEqual(DEFAULT_THEME);
  });
});
