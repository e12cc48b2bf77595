import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { session, signOut } from '@/features/auth/stores/session';
import { UsageBanner } from './UsageBanner';

const plan = { remainingCredits: 20, creditsUsed: 80, creditsTotal: 100, planType: 'free', conversationsUsed: 10, conversationsTotal: 100, botsUsed: 1, botsTotal: 1 };

describe('Usage banner', () => {
  beforeEach(() => {
    signOut();
    session.loggedIn = true;
  });

  it('warns at 80 % of a limit and links to Billing', () => {
    session.platform = [plan];
    render(<UsageBanner />, { route: '/dashboard' });
    expect(screen.getByTestId('usage-banner')).toHaveTextContent('You have used 80% of your credits this month.');
    expect(screen.getByRole('link', { name: 'Upgrade on the Billing page' })).toHaveAttribute('href', '/billing');
  });

  it('says when a limit is reached', () => {
    session.platform = [{ ...plan, conversationsUsed: 100, creditsUsed: 10 }];
    render(<UsageBanner />, { route: '/dashboard' });
    expect(screen.getByTestId('usage-banner')).toHaveTextContent("You have reached your plan's limit of conversations.");
  });

  it('stays away below 80 % and on unlimited plans', () => {
    session.platform = [{ ...plan, creditsUsed: 79 }];
    const { unmount } = render(<UsageBanner />, { route: '/dashboard' });
    expect(screen.queryByTestId('usage-banner')).toBeNull();
    unmount();
    session.platform = [{ ...plan, creditsUsed: 5000, creditsTotal: 999, conversationsUsed: 999, conversationsTotal: 999 }];
    render(<UsageBanner />, { route: '/dashboard' });
    expect(screen.queryByTestId('usage-banner')).toBeNull();
  });
});
