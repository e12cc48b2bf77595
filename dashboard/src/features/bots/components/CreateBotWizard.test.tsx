import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryRouter } from 'react-router';
import { render, renderRouter } from '../../../../test-utils/render';
import { bot, mockFetch } from '../../../../test-utils/fetch';
import { bots } from '../stores/bots';
import { FILE_TOO_LARGE, ICON_TYPE_ERROR, MAX_PDF_BYTES, PDF_ONLY, createWizard, stepPosition } from '../stores/wizard';
import { commentText } from './ShareDialog';
import { CreateBotWizard } from './CreateBotWizard';

const step = () => screen.getByTestId('wizard-step').textContent;

function open() {
  render(<CreateBotWizard opened onClose={() => {}} />);
  return userEvent.setup();
}

describe('create wizard: the name rule', () => {
  beforeEach(() => {
    bots.bots = [];
  });

  it('keeps Next disabled while the name is blank after trimming, and says why', async () => {
    const u = open();
    const next = screen.getByRole('button', { name: 'Next' });
    expect(next).toBeDisabled();
    await u.type(screen.getByLabelText(/Assistant Name/), '   ');
    expect(next).toBeDisabled();
    expect(screen.getByText('Bot name is required')).toBeInTheDocument();
    await u.type(screen.getByLabelText(/Assistant Name/), 'Helper');
    expect(next).toBeEnabled();
    expect(screen.queryByText('Bot name is required')).not.toBeInTheDocument();
  });

  it('types the website URL input as url', () => {
    open();
    expect(screen.getByLabelText('Website URL')).toHaveAttribute('type', 'url');
  });

  it('Create is disabled when the name is blanked after the first step', () => {
    const w = createWizard();
    w.actions.setName('Helper');
    w.actions.next();
    w.actions.chooseMethod('skip');
    w.actions.setName('  ');
    expect(w.state.step).toBe('review');
    return expect(w.actions.create()).resolves.toBeNull();
  });
});

describe('create wizard: the step count', () => {
  beforeEach(() => {
    bots.bots = [];
  });

  it('counts 3 steps when training is skipped, and shows the real bot id in the code', async () => {
    const calls = mockFetch({
      'POST /api/bots': { status: 201, body: { bot: bot('b-real-42', 'Helper') } },
      'GET /api/bots': { body: { bots: [bot('b-real-42', 'Helper')] } },
    });
    const u = open();
    expect(step()).toBe('Step 1 of 4');
    await u.type(screen.getByLabelText(/Assistant Name/), '  Helper ');
    await u.type(screen.getByLabelText('Website URL'), 'https://example.com');
    await u.click(screen.getByRole('button', { name: 'Next' }));
    expect(step()).toBe('Step 2 of 4');
    await u.click(screen.getByRole('button', { name: /Skip/ }));
    expect(step()).toBe('Step 2 of 3');
    expect(screen.getByText('Review & Create')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(step()).toBe('Step 3 of 3'));
    expect(screen.getByText('Integration Code')).toBeInTheDocument();
    expect(await screen.findByText('Bot Created Successfully')).toBeInTheDocument();

    const form = calls.find((c) => c.method === 'POST')!.body as FormData;
    expect(form.get('name')).toBe('Helper');
    expect(form.get('websiteUrl')).toBe('https://example.com/');
    expect(form.get('faqMethod')).toBe('skip');
    expect(screen.getByTestId('snippet-react').textContent).toContain('b-real-42');
    expect(bots.bots.map((b) => b._id)).toEqual(['b-real-42']); // the list reloaded
  });

  it('counts 4 steps with training text', async () => {
    mockFetch({});
    const u = open();
    await u.type(screen.getByLabelText(/Assistant Name/), 'Helper');
    await u.click(screen.getByRole('button', { name: 'Next' }));
    await u.click(screen.getByRole('button', { name: /Enter Text/ }));
    const next = screen.getByRole('button', { name: 'Next' });
    expect(next).toBeDisabled();
    await u.type(screen.getByLabelText('Training text'), 'We open at nine.');
    expect(screen.getByText('16/5000')).toBeInTheDocument();
    await u.click(next);
    expect(step()).toBe('Step 3 of 4');
  });

  it('toasts "Bot Created Failed" with the server message and stays on the review', async () => {
    mockFetch({
      'POST /api/bots': { status: 422, body: { error: { code: 'validation', message: 'Bot name is required' } } },
    });
    const u = open();
    await u.type(screen.getByLabelText(/Assistant Name/), 'Helper');
    await u.click(screen.getByRole('button', { name: 'Next' }));
    await u.click(screen.getByRole('button', { name: /Skip/ }));
    await u.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Bot Created Failed')).toBeInTheDocument();
    expect(step()).toBe('Step 2 of 3');
  });

  it('on the plan limit says so, closes and goes to Billing', async () => {
    const message = 'Your Free plan allows 1 assistant. Upgrade your plan on the Billing page (/billing) to create more.';
    mockFetch({
      'POST /api/bots': { status: 403, body: { error: { code: 'plan_limit', message, limit: 'bots', upgradeUrl: '/billing' } } },
    });
    let closed = false;
    const router = createMemoryRouter(
      [
        { path: '/dashboard', element: <CreateBotWizard opened onClose={() => (closed = true)} /> },
        { path: '/billing', element: <p>Billing page</p> },
      ],
      { initialEntries: ['/dashboard'] },
    );
    renderRouter(router);
    const u = userEvent.setup();
    await u.type(screen.getByLabelText(/Assistant Name/), 'Second');
    await u.click(screen.getByRole('button', { name: 'Next' }));
    await u.click(screen.getByRole('button', { name: /Skip/ }));
    await u.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Plan limit reached')).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/billing'));
    expect(closed).toBe(true);
  });

  it('position rule: training counts while on it, not once skipped', () => {
    expect(stepPosition({ step: 'basic', faqMethod: null })).toEqual({ n: 1, total: 4 });
    expect(stepPosition({ step: 'training', faqMethod: 'skip' })).toEqual({ n: 2, total: 4 });
    expect(stepPosition({ step: 'review', faqMethod: 'upload' })).toEqual({ n: 3, total: 4 });
    expect(stepPosition({ step: 'integration', faqMethod: 'text' })).toEqual({ n: 4, total: 4 });
    expect(stepPosition({ step: 'integration', faqMethod: 'skip' })).toEqual({ n: 3, total: 3 });
  });
});

describe('create wizard: the PDF limit', () => {
  it('refuses a PDF over 10 MB and clears the selection', () => {
    const w = createWizard();
    w.actions.setFile(new File(['%PDF-1.4'], 'small.pdf', { type: 'application/pdf' }));
    expect(w.state.faqFile?.name).toBe('small.pdf');
    w.actions.setFile(new File([new Uint8Array(MAX_PDF_BYTES + 1)], 'big.pdf', { type: 'application/pdf' }));
    expect(w.state.faqFile).toBeNull();
    expect(w.state.fileError).toBe(FILE_TOO_LARGE);
    expect(FILE_TOO_LARGE).toBe('File size must be less than 10MB');
  });

  it('refuses a file that is not a PDF, and an icon type the server does not keep', () => {
    const w = createWizard();
    w.actions.setFile(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    expect(w.state.faqFile).toBeNull();
    expect(w.state.fileError).toBe(PDF_ONLY);
    w.actions.setIcon(new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }));
    expect(w.state.icon).toBeNull();
    expect(w.state.iconError).toBe(ICON_TYPE_ERROR);
    w.actions.setIcon(new File(['png'], 'logo.png', { type: 'image/png' }));
    expect(w.state.icon?.name).toBe('logo.png');
    expect(w.state.iconError).toBeNull();
  });
});

describe('create wizard: the website', () => {
  beforeEach(() => {
    bots.bots = [];
  });

  it('says an invalid website is one on step 1 and keeps Next disabled; a bare domain is sent as https', async () => {
    const calls = mockFetch({
      'POST /api/bots': { status: 201, body: { bot: bot('b1', 'Helper') } },
      'GET /api/bots': { body: { bots: [bot('b1', 'Helper')] } },
    });
    const u = open();
    await u.type(screen.getByLabelText(/Assistant Name/), 'Helper');
    const site = screen.getByLabelText('Website URL');
    await u.type(site, 'not a site');
    await u.tab();
    expect(screen.getByText('Please enter a valid URL (e.g., https://example.com)')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await u.clear(site);
    await u.type(site, 'acme.example');
    await u.click(screen.getByRole('button', { name: 'Next' }));
    await u.click(screen.getByRole('button', { name: /Skip/ }));
    await u.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/api/bots')).toBe(true));
    const post = calls.find((c) => c.method === 'POST' && c.path === '/api/bots');
    expect((post?.body as FormData).get('websiteUrl')).toBe('https://acme.example/');
  });
});

describe('share dialog: the embed comment', () => {
  it('cannot be ended early by the bot name', () => {
    expect(commentText('Support --> <script>alert(1)</script>')).toBe('Support - scriptalert(1)/script');
    expect(commentText('Plain name')).toBe('Plain name');
  });
});
