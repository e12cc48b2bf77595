import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { Integrations, QUICK_STEPS } from './Integrations';

describe('Integrations', () => {
  it('shows the three snippets with the real bot id, four quick setup steps and the chat link', async () => {
    render(<Integrations botId="bot-real-77" />);
    const u = userEvent.setup();
    for (const tab of ['React', 'HTML', 'WordPress']) {
      await u.click(screen.getByRole('tab', { name: tab }));
      expect(screen.getByTestId(`snippet-${tab.toLowerCase()}`).textContent).toContain('bot-real-77');
    }
    expect(screen.getByTestId('quick-steps').querySelectorAll('li')).toHaveLength(QUICK_STEPS.length);
    expect(QUICK_STEPS).toHaveLength(4);
    expect(screen.getByTestId('chat-link').textContent).toBe(`${window.location.origin}/chat?id=bot-real-77`);
  });
});
