import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { Documentation } from './Documentation';

describe('Documentation', () => {
  it("uses this server's origin in the embed example and covers the four topics", () => {
    render(<Documentation origin="https://parley.shop.example" />);
    expect(screen.getByTestId('doc-snippet').textContent).toBe(
      '<script src="https://parley.shop.example/widget.js" data-bot-id="YOUR_BOT_ID" data-theme="light" async></script>',
    );
    for (const title of ['Put the assistant on your website', 'Train your assistant', 'Hand a conversation to a person', 'Invite your team: roles']) {
      expect(screen.getByRole('heading', { name: title })).toBeInTheDocument();
    }
    expect(screen.getByText('PDF files under 10 MB each')).toBeInTheDocument();
  });

  it("puts the active bot's real id in the examples", () => {
    render(<Documentation origin="https://p.example" bot={{ id: 'bot-9', name: 'Helper' }} />);
    expect(screen.getByTestId('doc-snippet').textContent).toContain('data-bot-id="bot-9"');
    expect(screen.getByText('https://p.example/chat?id=bot-9')).toBeInTheDocument();
  });
});
