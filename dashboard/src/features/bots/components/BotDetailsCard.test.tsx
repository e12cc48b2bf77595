import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { bot, mockFetch, type Call } from '../../../../test-utils/fetch';
import { runSignOutResets } from '@/lib/sign-out';
import type { Bot } from '../api/bots';
import { bots } from '../stores/bots';
import { detailsErrors, detailsPatch } from '../stores/details';
import { BotDetailsCard } from './BotDetailsCard';

const helper = () => bot('b1', 'Helper', { description: 'Answers orders', websiteUrl: 'https://old.example.com/' }) as Bot;

describe('details rules', () => {
  it('refuse in the wizard and server words', () => {
    expect(detailsErrors({ name: '  ', description: '', websiteUrl: '' })).toEqual({ name: 'Bot name is required' });
    expect(detailsErrors({ name: 'x'.repeat(101), description: 'd'.repeat(501), websiteUrl: 'not a url' })).toEqual({
      name: 'Bot name must be at most 100 characters',
      description: 'Description must be at most 500 characters',
      websiteUrl: 'Please enter a valid URL (e.g., https://example.com)',
    });
    expect(detailsErrors({ name: 'x'.repeat(100), description: '', websiteUrl: 'acme.com' })).toEqual({});
  });

  it('send only what changed, trimmed, with the website normalised or cleared', () => {
    const b = helper();
    expect(detailsPatch(b, { name: ' Helper ', description: 'Answers orders', websiteUrl: 'https://old.example.com/' })).toEqual({});
    expect(detailsPatch(b, { name: 'Aide', description: ' New ', websiteUrl: 'acme.com' })).toEqual({
      name: 'Aide',
      description: 'New',
      websiteUrl: 'https://acme.com/',
    });
    expect(detailsPatch(b, { name: 'Helper', description: 'Answers orders', websiteUrl: ' ' })).toEqual({ websiteUrl: '' });
  });
});

describe('BotDetailsCard', () => {
  let puts: unknown[];
  let crawls: unknown[];
  let icons: number;

  beforeEach(() => {
    runSignOutResets();
    localStorage.setItem('authToken', 'tok');
    puts = [];
    crawls = [];
    icons = 0;
    bots.bots = [helper()];
    mockFetch({
      'PUT /api/bots/b1': (c: Call) => {
        puts.push(c.body);
        return { body: { bot: { ...bots.bots[0], ...(c.body as object) } } };
      },
      'POST /api/bots/b1/icon': (c: Call) => {
        icons += (c.body as FormData).get('icon') ? 1 : 0;
        return { body: { bot: { ...bots.bots[0], icon: '/uploads/public/new.png' } } };
      },
      'POST /api/bots/b1/sources/website': (c: Call) => {
        crawls.push(c.body);
        return { status: 201, body: { source: { _id: 's1', status: 'processing' } } };
      },
    });
  });

  it('shows the errors inline and will not save them', async () => {
    render(<BotDetailsCard bot={helper()} />);
    const u = userEvent.setup();
    const save = screen.getByRole('button', { name: 'Save Details' });
    expect(save).toBeDisabled(); // nothing changed yet
    await u.clear(screen.getByLabelText(/Assistant Name/));
    expect(screen.getByText('Bot name is required')).toBeInTheDocument();
    await u.type(screen.getByLabelText(/Assistant Name/), 'Aide');
    await u.clear(screen.getByLabelText('Website'));
    await u.type(screen.getByLabelText('Website'), 'not a url');
    expect(screen.getByText('Please enter a valid URL (e.g., https://example.com)')).toBeInTheDocument();
    expect(save).toBeDisabled();
    await u.click(save);
    expect(puts).toEqual([]);
  });

  it('saves name, description and icon; a new website is offered for crawling', async () => {
    render(<BotDetailsCard bot={helper()} />);
    const u = userEvent.setup();
    await u.clear(screen.getByLabelText(/Assistant Name/));
    await u.type(screen.getByLabelText(/Assistant Name/), 'Aide');
    await u.clear(screen.getByLabelText('Description'));
    await u.type(screen.getByLabelText('Description'), 'Helps with returns');
    await u.clear(screen.getByLabelText('Website'));
    await u.type(screen.getByLabelText('Website'), 'new.example.com');
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'icon.png', { type: 'image/png' });
    await u.upload(document.querySelector('input[type=file]') as HTMLInputElement, file);
    await u.click(screen.getByRole('button', { name: 'Save Details' }));

    await waitFor(() => expect(puts).toEqual([{ name: 'Aide', description: 'Helps with returns', websiteUrl: 'https://new.example.com/' }]));
    await waitFor(() => expect(icons).toBe(1));
    expect(bots.bots[0].name).toBe('Aide');
    expect(bots.bots[0].icon).toBe('/uploads/public/new.png');
    expect(await screen.findByText('Crawl the new website?')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Crawl website' }));
    await waitFor(() => expect(crawls).toEqual([{ url: 'https://new.example.com/' }]));
    await waitFor(() => expect(screen.queryByText('Crawl the new website?')).toBeNull());
  });

  it('no crawl without a new website, and Not now declines it', async () => {
    render(<BotDetailsCard bot={helper()} />);
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Description'), '!');
    await u.click(screen.getByRole('button', { name: 'Save Details' }));
    await waitFor(() => expect(puts).toEqual([{ description: 'Answers orders!' }]));
    expect(screen.queryByText('Crawl the new website?')).toBeNull();

    await u.clear(screen.getByLabelText('Website'));
    await u.type(screen.getByLabelText('Website'), 'https://other.example.com');
    await u.click(screen.getByRole('button', { name: 'Save Details' }));
    await u.click(await screen.findByRole('button', { name: 'Not now' }));
    await waitFor(() => expect(screen.queryByText('Crawl the new website?')).toBeNull());
    expect(crawls).toEqual([]);
  });

  it('is read-only for a role that may not edit the bot', () => {
    render(<BotDetailsCard bot={{ ...helper(), role: 'viewer' }} readOnly />);
    expect(screen.getByLabelText(/Assistant Name/)).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save Details' })).toBeNull();
    expect(screen.getByRole('switch')).toBeDisabled();
  });
});
