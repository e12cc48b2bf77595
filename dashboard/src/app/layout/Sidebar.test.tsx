import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../test-utils/render';
import { bot, me } from '../../../test-utils/fetch';
import { session, signOut } from '@/features/auth/stores/session';
import { bots } from '@/features/bots/stores/bots';
import { Sidebar, creditsUsedPercent } from './Sidebar';

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

  it('computes the usage share, 0 without a total', () => {
    expect(creditsUsedPercent({ creditsUsed: 25, creditsTotal: 200 })).toBe(12.5);
    expect(creditsUsedPercent({ creditsUsed: 5, creditsTotal: 0 })).toBe(0);
    expect(creditsUsedPercent({ creditsUsed: 500, creditsTotal: 100 })).toBe(100);
    expect(creditsUsedPercent(undefined)).toBe(0);
  });
});
