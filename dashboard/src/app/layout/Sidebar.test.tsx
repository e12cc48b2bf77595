import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../test-utils/render';
import { bot, me, mockFetch } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';
import { bots } from '@/features/bots/stores/bots';
import { Sidebar, botItemsFor, creditsUsedPercent } from './Sidebar';

describe('Sidebar', () => {
  beforeEach(() => {
    signOut();
    session.token = 'tok';
    session.loggedIn = true;
    session.user = { ...me.user, name: null };
    session.platform = [{ remainingCredits: 40, creditsUsed: 60, creditsTotal: 100, planType: 'free' }];
  });

  it('renders nothing when signed out', () => {
    session.loggedIn = false;
    const { container } = render(<Sidebar />);
    expect(container.querySelector('nav, a')).toBeNull();
  });

  it('shows remaining credits and a usage bar computed from the plan', () => {
    render(<Sidebar />);
    expect(screen.getByTestId('credits')).toHaveTextContent('40');
    expect(screen.getByRole('progressbar', { name: 'Credits used' })).toHaveAttribute('aria-valuenow', '60');
    expect(screen.getByText('User')).toBeInTheDocument(); // name fallback
  });

  it('links the plan label and the credit bar to Billing', () => {
    render(<Sidebar />);
    expect(screen.getByTestId('plan-label')).toHaveAttribute('href', '/billing');
    expect(screen.getByTestId('plan-label')).toHaveTextContent('Free Plan');
    expect(screen.getByTestId('credits-link')).toHaveAttribute('href', '/billing');
  });

  it('shows Bot Management only with an active bot', () => {
    bots.bots = [bot('b1', 'Helper') as never];
    bots.activeBotId = null;
    const { unmount } = render(<Sidebar />);
    expect(screen.queryByText('Bot Management')).toBeNull();
    expect(screen.getByText('My Bots')).toBeInTheDocument();
    unmount();
    bots.activeBotId = 'b1';
    render(<Sidebar />);
    expect(screen.getByText('Bot Management')).toBeInTheDocument();
    expect(screen.getByText('AI Assistant')).toBeInTheDocument(); // description fallback in the picker
  });

  it('marks the screens a role may only look at, per the role on the active bot', () => {
    const viewOnly = () =>
      screen
        .queryAllByText('View only')
        .map((badge) => badge.closest('a')?.textContent?.replace('View only', ''))
        .sort();
    bots.bots = [bot('b1', 'Owned'), bot('b2', 'Shared', { role: 'viewer' }), bot('b3', 'Support', { role: 'agent' })] as never;
    bots.activeBotId = 'b1';
    const { unmount } = render(<Sidebar />);
    expect(viewOnly()).toEqual([]);
    unmount();

    // A viewer: every bot screen is there to look at, none to change.
    bots.activeBotId = 'b2';
    const viewer = render(<Sidebar />);
    expect(viewOnly()).toEqual(['Agent Dashboard', 'Bot Settings', 'Chat', 'Customize', 'Sessions', 'Teams', 'Training']);
    expect(screen.getByRole('link', { name: /Customize/ })).toHaveAttribute('href', '/preview');
    viewer.unmount();

    // An agent works the support screens; configuration is view-only.
    bots.activeBotId = 'b3';
    render(<Sidebar />);
    expect(viewOnly()).toEqual(['Bot Settings', 'Customize', 'Teams', 'Training']);
    expect(screen.getByRole('link', { name: 'Agent Dashboard' })).toBeInTheDocument();
  }, 20_000); // three full renders of the sidebar

  it('matches the permission table for every role', () => {
    const marked = (role: string) => botItemsFor(role).filter((e) => e.viewOnly).map((e) => e.item.to);
    expect(marked('owner')).toEqual([]);
    expect(marked('admin')).toEqual([]);
    expect(marked('editor')).toEqual(['/sessions', '/agent-dashboard', '/teams']);
    expect(marked('nonsense')).toEqual(marked('viewer'));
  });

  it('signs out on the server too: the token is ended, not only forgotten here', async () => {
    const calls = mockFetch({ 'POST /api/auth/logout': { body: { message: 'You are signed out' } } });
    render(<Sidebar />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign Out' }));
    expect(session.token).toBeNull();
    await waitFor(() => expect(calls.some((c) => c.path === '/api/auth/logout')).toBe(true));
    const call = calls.find((c) => c.path === '/api/auth/logout');
    expect(call?.method).toBe('POST');
    expect(call?.headers.Authorization).toBe('Bearer tok');
  });

  it('computes the usage share, 0 without a total', () => {
    expect(creditsUsedPercent({ creditsUsed: 25, creditsTotal: 200 })).toBe(12.5);
    expect(creditsUsedPercent({ creditsUsed: 5, creditsTotal: 0 })).toBe(0);
    expect(creditsUsedPercent({ creditsUsed: 500, creditsTotal: 100 })).toBe(100);
    expect(creditsUsedPercent(undefined)).toBe(0);
  });
});
