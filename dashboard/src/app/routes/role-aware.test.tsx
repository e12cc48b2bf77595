// The role each bot carries in GET /api/bots decides what its screens offer: a viewer sees
// Customize, Training and Bot Settings read-only; an agent handles support but edits nothing.
import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../test-utils/render';
import { bot, me, mockFetch } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';
import { bots } from '@/features/bots/stores/bots';

function as(role: string) {
  signOut();
  localStorage.setItem('authToken', 'tok');
  Object.assign(session, { token: 'tok', user: me.user, platform: me.platform, loggedIn: true });
  const helper = bot('b1', 'Helper', { role });
  bots.bots = [helper] as unknown as typeof bots.bots;
  bots.activeBotId = 'b1';
  mockFetch({
    'GET /api/bots': { body: { bots: [helper] } },
    'GET /api/bots/b1': { body: { bot: helper } },
    'GET /api/invitations': { body: { invitations: [] } },
    'GET /api/bots/b1/settings': { body: { maxChatTextSize: 1000, urlWhitelist: ['https://shop.example'] } },
    'GET /api/bots/b1/sources': {
      body: {
        pdf: [],
        websites: [],
        text: [{ _id: 't1', kind: 'text', name: 'Shipping', status: 'completed', content: 'We ship', createdAt: '2026-11-01T00:00:00Z' }],
        qa: [],
      },
    },
  });
}

describe('a viewer', () => {
  beforeEach(() => as('viewer'));

  it('sees Customize read-only: no Save or Reset, every control disabled', async () => {
    renderApp('/preview');
    const editor = await screen.findByTestId('customize-editor');
    expect(screen.getByTestId('read-only-notice')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reset' })).toBeNull();
    const fields = editor.querySelectorAll('input, textarea, button:not([role="tab"])');
    expect(fields.length).toBeGreaterThan(5);
    for (const f of fields) expect(f).toBeDisabled();
    // The tabs stay usable: looking is allowed.
    expect(within(editor).getByRole('tab', { name: 'Content' })).toBeEnabled();
  });

  it('sees Training read-only: no Start Training, no add forms, no delete buttons', async () => {
    renderApp('/training');
    await screen.findByRole('tab', { name: /Text Sources/ });
    expect(screen.getByTestId('read-only-notice')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Start Training/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /Upload/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Delete/ })).toBeNull();
  });

  it('sees Bot Settings read-only: inputs disabled, no Save Settings', async () => {
    renderApp('/bot-settings');
    const size = await screen.findByLabelText(/^Maximum Chat Text Size/);
    expect(size).toBeDisabled();
    expect(screen.getByLabelText('Website URL')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Remove https://shop.example' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save Settings' })).toBeNull();
  });
});

describe('an editor and an agent', () => {
  it('an editor may save Bot Settings', async () => {
    as('editor');
    renderApp('/bot-settings');
    const size = await screen.findByLabelText(/^Maximum Chat Text Size/);
    expect(size).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Save Settings' })).toBeInTheDocument();
    expect(screen.queryByTestId('read-only-notice')).toBeNull();
  });

  it('an agent sees Training read-only', async () => {
    as('agent');
    renderApp('/training');
    await screen.findByTestId('read-only-notice');
    await waitFor(() => expect(screen.queryByRole('button', { name: /Start Training/ })).toBeNull());
  });
});

describe('a role changed by the owner', () => {
  it('shows on the next page load of any screen, not only the overview', async () => {
    as('viewer');
    // The list kept from an earlier visit still says editor; the server says viewer now.
    bots.bots = [bot('b1', 'Helper', { role: 'editor' })] as unknown as typeof bots.bots;
    renderApp('/preview');
    await screen.findByTestId('read-only-notice');
    await screen.findByTestId('customize-editor');
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
  });
});
