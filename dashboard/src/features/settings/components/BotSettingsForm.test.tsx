import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { mockFetch } from '../../../../test-utils/fetch';
import {
  CHAT_TEXT_SIZE_RANGE,
  addEntry,
  botSettings,
  chatTextSizeError,
  toChatTextSize,
} from '../stores/botSettings';
import { BotSettingsForm } from './BotSettingsForm';

describe('bot settings rules', () => {
  it('accepts 100 to 10000 and refuses the rest', () => {
    expect(chatTextSizeError(100)).toBeNull();
    expect(chatTextSizeError(10000)).toBeNull();
    expect(chatTextSizeError(1000)).toBeNull();
    expect(chatTextSizeError(99)).toBe(CHAT_TEXT_SIZE_RANGE);
    expect(chatTextSizeError(10001)).toBe(CHAT_TEXT_SIZE_RANGE);
  });

  it('turns a non-number into 0, which is refused', () => {
    expect(toChatTextSize('abc')).toBe(0);
    expect(toChatTextSize('')).toBe(0);
    expect(toChatTextSize(Number.NaN)).toBe(0);
    expect(toChatTextSize('2500')).toBe(2500);
    expect(chatTextSizeError('abc')).toBe(CHAT_TEXT_SIZE_RANGE);
    expect(chatTextSizeError('')).toBe(CHAT_TEXT_SIZE_RANGE);
  });

  it('trims whitelist entries, ignores empty ones and duplicates', () => {
    expect(addEntry([], '  https://a.example  ')).toEqual(['https://a.example']);
    expect(addEntry(['https://a.example'], 'https://a.example ')).toEqual(['https://a.example']);
    expect(addEntry(['x'], '   ')).toEqual(['x']);
  });
});

describe('Bot Settings form', () => {
  beforeEach(() => {
    botSettings.botId = null;
  });

  it('loads, edits and saves the settings through the API', async () => {
    const calls = mockFetch({
      'GET /api/bots/b1/settings': { body: { maxChatTextSize: 1000, urlWhitelist: ['https://old.example'] } },
      'PUT /api/bots/b1/settings': ({ body }) => ({ body }),
    });
    render(<BotSettingsForm botId="b1" />);
    const u = userEvent.setup();
    const size = await screen.findByLabelText(/Maximum Chat Text Size/);
    expect(size).toHaveValue('1000');
    await u.clear(size);
    await u.type(size, '2500');

    const add = screen.getByRole('button', { name: 'Add' });
    expect(add).toBeDisabled();
    await u.type(screen.getByLabelText('Website URL'), '   ');
    expect(add).toBeDisabled();
    await u.type(screen.getByLabelText('Website URL'), 'https://shop.example  ');
    expect(add).toBeEnabled();
    await u.click(add);
    await u.type(screen.getByLabelText('Website URL'), 'https://shop.example{enter}');
    expect(screen.getAllByTestId('whitelist-entry').map((e) => e.textContent)).toEqual([
      'https://old.example',
      'https://shop.example',
    ]);
    await u.click(screen.getByRole('button', { name: 'Remove https://old.example' }));

    await u.click(screen.getByRole('button', { name: 'Save Settings' }));
    await screen.findByText('Bot settings were saved');
    const put = calls.find((c) => c.method === 'PUT');
    expect(put?.body).toEqual({ maxChatTextSize: 2500, urlWhitelist: ['https://shop.example'] });
  });

  it('refuses an empty size without calling the server, and shows the server message on failure', async () => {
    const calls = mockFetch({
      'GET /api/bots/b1/settings': { body: { maxChatTextSize: 1000, urlWhitelist: [] } },
      'PUT /api/bots/b1/settings': {
        status: 422,
        body: { error: { code: 'validation', message: '"nope nope" is not a website address like https://example.com' } },
      },
    });
    render(<BotSettingsForm botId="b1" />);
    const u = userEvent.setup();
    const size = await screen.findByLabelText(/Maximum Chat Text Size/);
    await u.clear(size);
    expect(screen.getAllByText(CHAT_TEXT_SIZE_RANGE).length).toBeGreaterThan(0);
    await u.click(screen.getByRole('button', { name: 'Save Settings' }));
    await screen.findByText('Settings not saved');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    await u.type(size, '500');
    await u.type(screen.getByLabelText('Website URL'), 'nope nope{enter}');
    await u.click(screen.getByRole('button', { name: 'Save Settings' }));
    await screen.findByText('"nope nope" is not a website address like https://example.com');
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
  });
});
