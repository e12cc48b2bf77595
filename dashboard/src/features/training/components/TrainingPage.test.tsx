import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render } from '../../../../test-utils/render';
import { mockFetch } from '../../../../test-utils/fetch';
import type { Source } from '../api/sources';
import { MAX_PDF_BYTES, counterColour, pdfError, qaErrors, textError, urlError } from '../stores/rules';
import { stopTraining, training } from '../stores/training';
import { TrainingPage } from './TrainingPage';

function src(id: string, kind: Source['kind'], extra: Partial<Source> = {}): Source {
  return {
    _id: id,
    id,
    kind,
    status: 'completed',
    error: null,
    name: `${kind} ${id}`,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

function lists(over: Partial<Record<'pdf' | 'websites' | 'text' | 'qa', Source[]>> = {}) {
  const l = { pdf: [], websites: [], text: [], qa: [], ...over };
  return {
    counts: { pdf: l.pdf.length, websites: l.websites.length, text: l.text.length, qa: l.qa.length },
    ...l,
    knowledgeVersion: 1,
  };
}

const open = () => {
  render(<TrainingPage botId="b1" botName="Helper" />);
  return userEvent.setup();
};

afterEach(() => {
  stopTraining();
  vi.useRealTimers();
});

describe('training rules', () => {
  it('colours counters yellow above 70 % and red above 90 %', () => {
    expect(counterColour(105, 150)).toBe('dimmed'); // exactly 70 %
    expect(counterColour(106, 150)).toBe('yellow');
    expect(counterColour(135, 150)).toBe('yellow'); // exactly 90 %
    expect(counterColour(136, 150)).toBe('red');
    expect(counterColour(451, 500)).toBe('red');
  });

  it('refuses a PDF over 10 MB, keeps one at the limit', () => {
    expect(pdfError({ size: MAX_PDF_BYTES + 1 })).toBe('File size must be less than 10MB');
    expect(pdfError({ size: MAX_PDF_BYTES })).toBeNull();
    expect(MAX_PDF_BYTES).toBe(10485760);
  });

  it('requires a URL, text, question and answer, within their lengths', () => {
    expect(urlError('  ')).toBe('A training URL is required');
    expect(urlError('https://a.example')).toBeNull();
    expect(textError('')).toBe('Text is required');
    expect(textError('x'.repeat(5001))).toBe('Text must be at most 5000 characters');
    expect(textError('x'.repeat(5000))).toBeNull();
    expect(qaErrors('', '')).toEqual({ question: 'Question is required', answer: 'Answer is required' });
    expect(qaErrors('q'.repeat(151), 'a'.repeat(501))).toEqual({
      question: 'Question must be at most 150 characters',
      answer: 'Answer must be at most 500 characters',
    });
    expect(qaErrors('q'.repeat(150), 'a'.repeat(500))).toEqual({ question: null, answer: null });
  });
});

describe('Training page', () => {
  beforeEach(() => {
    localStorage.setItem('authToken', 'tok');
  });

  it('shows four tabs with their counts and each item with its status', async () => {
    mockFetch({
      'GET /api/bots/b1/sources': {
        body: lists({
          pdf: [src('p1', 'pdf', { status: 'failed', error: 'The PDF has no text' })],
          text: [src('t1', 'text'), src('t2', 'text', { status: 'processing' })],
        }),
      },
    });
    open();
    await waitFor(() => expect(screen.getByTestId('count-text')).toHaveTextContent('2'));
    expect(screen.getByTestId('count-pdf')).toHaveTextContent('1');
    expect(screen.getByTestId('count-websites')).toHaveTextContent('0');
    expect(screen.getByTestId('count-qa')).toHaveTextContent('0');
    for (const name of ['PDF Documents', 'Websites', 'Text Sources', 'Q&A Pairs']) {
      expect(screen.getByRole('tab', { name: new RegExp(name) })).toBeInTheDocument();
    }
    expect(screen.getByLabelText('Failed')).toBeInTheDocument();
    expect(screen.getByText('The PDF has no text')).toBeInTheDocument();
  });

  it('clears a PDF selection over 10 MB and says why', async () => {
    mockFetch({ 'GET /api/bots/b1/sources': { body: lists() } });
    open();
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    const big = new File(['x'], 'big.pdf', { type: 'application/pdf' });
    Object.defineProperty(big, 'size', { value: MAX_PDF_BYTES + 1 });
    fireEvent.change(input, { target: { files: [big] } });
    expect(await screen.findByText('File size must be less than 10MB')).toBeInTheDocument();
    expect(screen.queryByText('big.pdf')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload PDF' })).toBeDisabled();
  });

  it('disables adding at 20 sources with the spec labels', async () => {
    const text = Array.from({ length: 20 }, (_, i) => src(`t${i}`, 'text'));
    mockFetch({ 'GET /api/bots/b1/sources': { body: lists({ text }) } });
    const u = open();
    await u.click(screen.getByRole('tab', { name: /Text Sources/ }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Maximum sources reached' })).toBeDisabled());
    expect(screen.getByText('Remove some sources to add new ones')).toBeInTheDocument();
    expect(screen.getByText('Maximum number of sources reached')).toBeInTheDocument();
  });

  it('stops Q&A at 50 pairs', async () => {
    const qa = Array.from({ length: 50 }, (_, i) => src(`q${i}`, 'qa', { question: `Q${i}?`, answer: 'A' }));
    mockFetch({ 'GET /api/bots/b1/sources': { body: lists({ qa }) } });
    const u = open();
    await u.click(screen.getByRole('tab', { name: /Q&A Pairs/ }));
    await waitFor(() => expect(screen.getAllByText('Maximum number of Q&A pairs reached').length).toBeGreaterThan(0));
    expect(screen.getByRole('button', { name: 'Maximum number of Q&A pairs reached' })).toBeDisabled();
  });

  it('counts text up to 5000 and Q&A with coloured counters', async () => {
    mockFetch({ 'GET /api/bots/b1/sources': { body: lists() } });
    const u = open();
    await u.click(screen.getByRole('tab', { name: /Text Sources/ }));
    fireEvent.change(screen.getByLabelText(/Custom text/), { target: { value: 'x'.repeat(3600) } });
    expect(screen.getByTestId('text-counter')).toHaveTextContent('3600/5000');
    expect(screen.getByTestId('text-counter')).toHaveAttribute('data-colour', 'yellow');
    await u.click(screen.getByRole('tab', { name: /Q&A Pairs/ }));
    fireEvent.change(screen.getByLabelText(/^Question/), { target: { value: 'q'.repeat(140) } });
    expect(screen.getByTestId('question-counter')).toHaveTextContent('140/150');
    expect(screen.getByTestId('question-counter')).toHaveAttribute('data-colour', 'red');
    await u.click(screen.getByRole('button', { name: 'Add Q&A Pair' }));
    expect(screen.getByText('Answer is required')).toBeInTheDocument();
  });

  it('adds a Q&A pair and turns its icon completed when the poll says so, no reload', async () => {
    let status: Source['status'] = 'processing';
    const pair = () => src('q1', 'qa', { question: 'Do you ship?', answer: 'Yes, worldwide.', status });
    let added = false;
    const calls = mockFetch({
      'GET /api/bots/b1/sources': () => ({ body: lists({ qa: added ? [pair()] : [] }) }),
      'POST /api/bots/b1/sources/qa': () => {
        added = true;
        return { status: 201, body: { source: pair() } };
      },
    });
    const u = open();
    await u.click(screen.getByRole('tab', { name: /Q&A Pairs/ }));
    await u.type(screen.getByLabelText(/^Question/), 'Do you ship?');
    await u.type(screen.getByLabelText(/^Answer/), 'Yes, worldwide.');
    await u.click(screen.getByRole('button', { name: 'Add Q&A Pair' }));
    const item = await screen.findByTestId('source-item');
    expect(within(item).getByLabelText('Processing')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ question: 'Do you ship?', answer: 'Yes, worldwide.' });
    status = 'completed';
    await waitFor(() => expect(within(screen.getByTestId('source-item')).getByLabelText('Completed')).toBeInTheDocument(), {
      timeout: 4000,
    });
  });

  it('shows the server message when adding fails, and deletes for real', async () => {
    const calls = mockFetch({
      'GET /api/bots/b1/sources': { body: lists({ websites: [src('w1', 'website', { url: 'https://a.example' })] }) },
      'POST /api/bots/b1/sources/website': {
        status: 400,
        body: { error: { code: 'validation', message: 'That website cannot be crawled: robots.txt' } },
      },
      'DELETE /api/bots/b1/sources/w1': { status: 204 },
    });
    const u = open();
    await u.click(screen.getByRole('tab', { name: /Websites/ }));
    expect(screen.getByLabelText(/Website URL/)).toHaveAttribute('type', 'url');
    await u.click(screen.getByRole('button', { name: 'Add Website' }));
    expect(screen.getByText('A training URL is required')).toBeInTheDocument();
    await u.type(screen.getByLabelText(/Website URL/), 'https://b.example');
    await u.click(screen.getByRole('button', { name: 'Add Website' }));
    expect((await screen.findAllByText('That website cannot be crawled: robots.txt')).length).toBeGreaterThan(0);
    await u.click(await screen.findByRole('button', { name: 'Delete website w1' }));
    await waitFor(() => expect(training.websites).toHaveLength(0));
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/bots/b1/sources/w1')).toBe(true);
  });

  it('Start Training posts /train and re-reads the statuses', async () => {
    const calls = mockFetch({
      'GET /api/bots/b1/sources': { body: lists() },
      'POST /api/bots/b1/train': { status: 202, body: { training: true } },
    });
    const u = open();
    await waitFor(() => expect(calls.length).toBe(1));
    await u.click(screen.getByRole('button', { name: 'Start Training' }));
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/bots/b1/sources').length).toBe(2));
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/bots/b1/train')).toBe(true);
    await act(async () => {});
  });
});
