import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { render } from '../../../../test-utils/render';
import { mockFetch } from '../../../../test-utils/fetch';
import { OAuthButtons } from './OAuthButtons';

const providers = (google: boolean, github: boolean) => ({ 'GET /api/auth/providers': { body: { google, github } } });

describe('OAuthButtons', () => {
  it('offers only the providers the server is set up for', async () => {
    mockFetch(providers(false, true));
    render(<OAuthButtons />);
    expect(await screen.findByRole('button', { name: 'Continue with GitHub' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Continue with Google' })).toBeNull();
    expect(screen.getByText('or with email')).toBeInTheDocument();
  });

  it('offers neither, nor the "or with email" line, on a server with no provider set up', async () => {
    const calls = mockFetch(providers(false, false));
    render(<OAuthButtons />);
    await waitFor(() => expect(calls.some((c) => c.path === '/api/auth/providers')).toBe(true));
    // Let the answer land.
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.queryByRole('button', { name: /Continue with/ })).toBeNull();
    expect(screen.queryByText('or with email')).toBeNull();
  });

  it('offers both when the server cannot say', async () => {
    mockFetch({});
    render(<OAuthButtons />);
    expect(await screen.findByRole('button', { name: 'Continue with Google' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Continue with GitHub' })).toBeInTheDocument();
  });

  it('offers both when both are set up', async () => {
    mockFetch(providers(true, true));
    render(<OAuthButtons />);
    expect(await screen.findByRole('button', { name: 'Continue with Google' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Continue with GitHub' })).toBeInTheDocument();
  });
});
