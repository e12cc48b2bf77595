import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { bot, mockFetch } from '../../../../test-utils/fetch';
import type { Bot } from '@/features/bots/api/bots';
import { bots } from '@/features/bots/stores/bots';
import { customize } from '../stores/customize';
import { CustomizePage } from './CustomizePage';

const helper = bot('b1', 'Helper', { welcomeMessage: 'Hi there', customQuestions: ['Do you ship?'], maxMessageLength: 300, typingDelay: 500 }) as unknown as Bot;
const sources = { counts: { pdf: 0, websites: 0, text: 0, qa: 2 }, pdf: [], websites: [], text: [], qa: [
  { _id: 'q1', kind: 'qa', status: 'completed', question: 'Where is my order?' },
  { _id: 'q2', kind: 'qa', status: 'processing', question: 'Not trained yet?' },
] };

describe('Customize page', () => {
  beforeEach(() => {
    localStorage.setItem('authToken', 'tok');
    bots.bots = [helper];
    bots.activeBotId = 'b1';
  });

  it('fills the editor from the bot and styles the test chat with the unsaved settings', async () => {
    mockFetch({ 'GET /api/bots/b1': { body: { bot: helper } } });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    const chat = await screen.findByTestId('test-chat');
    expect(within(chat).getByText('Hi there')).toBeInTheDocument();
    // The bot's name and its state (spec 2 /preview), not the widget's header subtitle.
    expect(screen.getByTestId('test-chat-name')).toHaveTextContent('Helper');
    expect(screen.getByTestId('test-chat-status')).toHaveTextContent('Online');
    expect(within(chat).queryByText("We're here to help")).toBeNull();
    expect(within(chat).getByText('Do you ship?')).toBeInTheDocument();
    expect(within(chat).getByText('Press Enter to send, Shift + Enter for new line')).toBeInTheDocument();
    await u.type(within(chat).getByLabelText('Message'), 'hello');
    expect(screen.getByTestId('test-chat-counter')).toHaveTextContent('5/300');

    await u.click(screen.getByRole('tab', { name: 'Content' }));
    const welcome = screen.getByLabelText('Welcome message');
    await u.clear(welcome);
    await u.type(welcome, 'Changed');
    expect(within(chat).getByText('Changed')).toBeInTheDocument();
    expect(screen.getByLabelText('Support email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Bot avatar URL')).toHaveAttribute('type', 'url');
    expect(screen.queryByLabelText('User avatar URL')).toBeNull();
  });

  it('draws the preview from the shared look: FAQ questions, footer, header, radius, custom CSS kept inside', async () => {
    mockFetch({ 'GET /api/bots/b1': { body: { bot: helper } }, 'GET /api/bots/b1/sources': { body: sources } });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    const chat = await screen.findByTestId('test-chat');
    expect(await within(chat).findByRole('button', { name: 'Where is my order?' })).toBeInTheDocument();
    expect(within(chat).queryByRole('button', { name: 'Not trained yet?' })).toBeNull();
    await u.click(screen.getByRole('tab', { name: 'Features' }));
    await u.click(screen.getByRole('switch', { name: /^FAQ/ }));
    await u.click(screen.getByRole('switch', { name: /^Quick replies/ }));
    expect(within(chat).queryByRole('button', { name: 'Where is my order?' })).toBeNull();
    expect(within(chat).queryByRole('button', { name: 'Do you ship?' })).toBeNull();

    await u.click(screen.getByRole('tab', { name: 'Content' }));
    await u.type(screen.getByLabelText('Company name'), 'Acme');
    await u.type(screen.getByLabelText('Support email'), 'help@acme.example');
    await u.clear(screen.getByLabelText('Header title'));
    await u.type(screen.getByLabelText('Header title'), 'Acme Desk');
    expect(within(chat).getByText('Chat with Acme')).toBeInTheDocument();
    expect(within(chat).getByRole('link', { name: 'Email us' })).toHaveAttribute('href', 'mailto:help@acme.example');
    // The header title is the widget's; the test chat names the bot.
    expect(screen.getByTestId('test-chat-name')).toHaveTextContent('Helper');
    for (const label of ['Business hours', 'Response time', 'Handover message']) expect(screen.getByLabelText(label)).toBeInTheDocument();

    await u.click(screen.getByRole('tab', { name: 'Advanced' }));
    await u.click(screen.getByLabelText('Custom CSS'));
    await u.paste('.parley-header { letter-spacing: 3px }');
    // Put under the preview's scope by the shared module (its escape cases: customCss.test.ts, e2e).
    expect(document.querySelector('style[data-parley-custom-css]')).toHaveTextContent(
      '[data-parley-chat] .parley-header { letter-spacing: 3px !important }',
    );
    expect(chat.closest('[data-parley-chat]')).not.toBeNull();
    expect(chat).toHaveClass('parley-chat');
  });

  it('caps quick questions at 5', async () => {
    mockFetch({ 'GET /api/bots/b1': { body: { bot: helper } } });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    await u.click(await screen.findByRole('tab', { name: 'Content' }));
    const add = screen.getByRole('button', { name: 'Add question' });
    for (let i = 0; i < 4; i++) await u.click(add);
    expect(screen.getByLabelText('Quick question 5')).toBeInTheDocument();
    expect(add).toBeDisabled();
  });

  it('asks before Reset and restores the reset defaults', async () => {
    const styled = { ...helper, selectedPalette: 4, chatSize: 'large', borderRadius: 20 } as Bot;
    mockFetch({ 'GET /api/bots/b1': { body: { bot: styled } } });
    const u = userEvent.setup();
    render(<CustomizePage bot={styled} />);
    await waitFor(() => expect(customize.settings.selectedPalette).toBe(4));
    await u.click(screen.getByRole('button', { name: 'Reset' }));
    expect(await screen.findByText('Reset all customizations to default values?')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Reset to defaults' }));
    expect(customize.settings).toMatchObject({ selectedPalette: 0, chatSize: 'medium', borderRadius: 12 });
  });

  it('toasts the save outcome', async () => {
    let fail = false;
    mockFetch({
      'GET /api/bots/b1': { body: { bot: helper } },
      'PUT /api/bots/b1': () =>
        fail ? { status: 500, body: { error: { code: 'internal', message: 'boom' } } } : { body: { bot: helper } },
    });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    await screen.findByText('Chat Customization');
    await u.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Configuration saved successfully!')).toBeInTheDocument();
    fail = true;
    await u.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to save configuration')).toBeInTheDocument();
  });

  it("says Typing... in the header while a reply is pending, Online again after it", async () => {
    let answer: (reply: Response) => void = () => {};
    mockFetch({
      'GET /api/bots/b1': { body: { bot: { ...helper, typingDelay: 0 } } },
      'GET /api/bots/b1/sources': { body: sources },
      // Held until the test answers, as a slow reply would be.
      'POST /api/chat': () => new Promise<Response>((done) => (answer = done)) as unknown as Promise<never>,
    });
    const u = userEvent.setup();
    render(<CustomizePage bot={{ ...helper, typingDelay: 0 } as Bot} />);
    const chat = await screen.findByTestId('test-chat');
    const status = screen.getByTestId('test-chat-status');
    expect(status).toHaveTextContent('Online');
    await u.type(within(chat).getByLabelText('Message'), 'Do you ship?{Enter}');
    await waitFor(() => expect(status).toHaveTextContent('Typing...'));
    const reply = { sessionId: 's1', visitorToken: 'vt', aiResponse: 'We ship worldwide.' };
    answer(new Response(JSON.stringify(reply), { headers: { 'Content-Type': 'application/json' } }));
    expect(await within(chat).findByText('We ship worldwide.')).toBeInTheDocument();
    expect(status).toHaveTextContent('Online');
  });

  it('sends with Enter, shows the reply, and the error bubble on failure', async () => {
    let ok = true;
    mockFetch({
      'GET /api/bots/b1': { body: { bot: helper } },
      'GET /api/bots/b1/sources': { body: sources },
      'POST /api/chat': () =>
        ok
          ? { body: { sessionId: 's1', visitorToken: 'vt', aiResponse: 'We ship worldwide.' } }
          : { status: 500, body: { error: { code: 'internal', message: 'x' } } },
    });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    const chat = await screen.findByTestId('test-chat');
    await u.type(within(chat).getByLabelText('Message'), 'Do you ship?{Enter}');
    expect(await within(chat).findByText('We ship worldwide.')).toBeInTheDocument();
    ok = false;
    await u.type(within(chat).getByLabelText('Message'), 'again{Enter}');
    expect(await within(chat).findByText('Sorry, I encountered an error processing your request.')).toBeInTheDocument();
  });

  it("says why the server refused a message (too long for the bot's limit)", async () => {
    mockFetch({
      'GET /api/bots/b1': { body: { bot: helper } },
      'GET /api/bots/b1/sources': { body: sources },
      'POST /api/chat': { status: 422, body: { error: { code: 'validation', message: 'Message is too long (the limit is 200 characters)' } } },
    });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    const chat = await screen.findByTestId('test-chat');
    await u.type(within(chat).getByLabelText('Message'), 'a long one{Enter}');
    expect(await within(chat).findByText('Message is too long (the limit is 200 characters)')).toBeInTheDocument();
  });

  it('a role that may not edit the bot sees the test chat but cannot start a conversation', async () => {
    const calls = mockFetch({ 'GET /api/bots/b1': { body: { bot: helper } }, 'GET /api/bots/b1/sources': { body: sources } });
    render(<CustomizePage bot={helper} readOnly />);
    const chat = await screen.findByTestId('test-chat');
    expect(within(chat).getByLabelText('Message')).toBeDisabled();
    expect(within(chat).getByRole('button', { name: 'Do you ship?' })).toBeDisabled();
    expect(within(chat).getByText('Testing is for owners, admins and editors')).toBeInTheDocument();
    expect(calls.some((c) => c.path === '/api/chat')).toBe(false);
  });

  it("shows a not-sure reply's did-you-mean chips in the test chat; a click asks that question", async () => {
    const unsure = { sessionId: 's1', visitorToken: 'vt', aiResponse: "I'm not sure I understood — did you mean:", suggestions: ['Where is my order?', 'Do you ship?'] };
    const calls = mockFetch({
      'GET /api/bots/b1': { body: { bot: helper } },
      'GET /api/bots/b1/sources': { body: sources },
      'POST /api/chat': (call) =>
        (call.body as { message: string }).message === 'Where is my order?'
          ? { body: { sessionId: 's1', visitorToken: 'vt', aiResponse: 'It ships in 2 days.' } }
          : { body: unsure },
    });
    const u = userEvent.setup();
    render(<CustomizePage bot={helper} />);
    const chat = await screen.findByTestId('test-chat');
    await u.type(within(chat).getByLabelText('Message'), 'wheres my stuff{Enter}');
    const chips = await within(chat).findByRole('group', { name: 'Did you mean' });
    await u.click(within(chips).getByRole('button', { name: 'Where is my order?' }));
    expect(await within(chat).findByText('It ships in 2 days.')).toBeInTheDocument();
    const asked = calls.filter((c) => c.path === '/api/chat').map((c) => (c.body as { message: string }).message);
    expect(asked).toEqual(['wheres my stuff', 'Where is my order?']);
    // The conversation moved on: the old chips no longer ask.
    expect(within(chips).getByRole('button', { name: 'Do you ship?' })).toBeDisabled();
  });
});
