// The add forms of the Training page, each with the spec's limits (spec 1 §5): PDF size, the
// 20-source cap, text length, Q&A lengths and the 50-pair cap. The server's message is shown
// when it refuses.
import { useState, type FormEvent } from 'react';
import { Alert, Button, FileInput, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { IconAlertCircle, IconFileTypePdf } from '@tabler/icons-react';
import { notify } from '@/lib/notify';
import {
  MAX_ANSWER_CHARS,
  MAX_QUESTION_CHARS,
  MAX_TEXT_CHARS,
  MAX_TITLE_CHARS,
  MSG,
  pdfError,
  qaErrors,
  qaFull,
  sourcesFull,
  textError,
  urlError,
} from '../stores/rules';
import { addPdf, addQa, addText, addWebsite } from '../stores/training';
import { Counter } from './Counter';

const message = (err: unknown, fallback: string) => (err instanceof Error && err.message ? err.message : fallback);

function FullNotice({ text }: { text: string }) {
  return (
    <Alert color="yellow" icon={<IconAlertCircle size={18} />} role="alert">
      {text}
    </Alert>
  );
}

/**
 * What every add form does on submit once its input is valid: the call with a busy flag, and on
 * refusal the server's message as a toast. Resolves with that message, or null on success.
 */
function useAdd() {
  const [busy, setBusy] = useState(false);
  async function add(call: () => Promise<unknown>, failure: string): Promise<string | null> {
    setBusy(true);
    try {
      await call();
      return null;
    } catch (err) {
      const m = message(err, failure);
      notify.error(m);
      return m;
    } finally {
      setBusy(false);
    }
  }
  return { busy, add };
}

/** The submit button, or at the cap the disabled 'Maximum sources reached' one with its hint. */
function SubmitOrFull({ full, label, loading, disabled }: { full: boolean; label: string; loading: boolean; disabled?: boolean }) {
  if (full) {
    return (
      <Stack gap={4}>
        <Button type="submit" disabled>
          {MSG.maxSourcesButton}
        </Button>
        <Text size="xs" c="dimmed">
          {MSG.maxSourcesHint}
        </Text>
      </Stack>
    );
  }
  return (
    <Button type="submit" loading={loading} disabled={disabled}>
      {label}
    </Button>
  );
}

export function PdfForm({ count }: { count: number }) {
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { busy, add } = useAdd();
  const full = sourcesFull(count);

  function choose(f: File | null) {
    const e = pdfError(f);
    setError(e);
    setFile(e ? null : f); // a file over the limit clears the selection
  }

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (full) return notify.error(MSG.maxSources);
    if (!file) return setError('Please choose a PDF file to upload');
    if ((await add(() => addPdf(file), 'Failed to upload PDF')) === null) {
      setFile(null);
      setError(null);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="sm">
        {full && <FullNotice text={MSG.maxSources} />}
        <FileInput
          label="PDF document"
          description="PDF files under 10MB"
          placeholder="Choose a PDF file"
          accept=".pdf,application/pdf"
          leftSection={<IconFileTypePdf size={18} />}
          value={file}
          onChange={choose}
          error={error}
          disabled={full}
          clearable
        />
        <SubmitOrFull full={full} label="Upload PDF" loading={busy} disabled={!file} />
      </Stack>
    </form>
  );
}

export function WebsiteForm({ count }: { count: number }) {
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { busy, add } = useAdd();
  const full = sourcesFull(count);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (full) return notify.error(MSG.maxSources);
    const e = urlError(url);
    setError(e);
    if (e) return;
    const refused = await add(() => addWebsite(url), 'Failed to add website');
    if (refused === null) setUrl('');
    else setError(refused);
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="sm">
        {full && <FullNotice text={MSG.maxSources} />}
        <TextInput
          type="url"
          label="Website URL"
          placeholder="https://example.com"
          required
          value={url}
          onChange={(e) => {
            setUrl(e.currentTarget.value);
            if (error) setError(null);
          }}
          error={error}
          disabled={full}
        />
        <SubmitOrFull full={full} label="Add Website" loading={busy} />
      </Stack>
    </form>
  );
}

export function TextForm({ count }: { count: number }) {
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { busy, add } = useAdd();
  const full = sourcesFull(count);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (full) return notify.error(MSG.maxSources);
    const e = textError(content);
    setError(e);
    if (e) return;
    if ((await add(() => addText(name, content), 'Failed to add text')) === null) {
      setName('');
      setContent('');
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="sm">
        {full && <FullNotice text={MSG.maxSources} />}
        <TextInput
          label="Title (optional)"
          maxLength={MAX_TITLE_CHARS}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          disabled={full}
        />
        <div>
          <Textarea
            label="Custom text"
            required
            autosize
            minRows={4}
            maxRows={12}
            maxLength={MAX_TEXT_CHARS}
            value={content}
            onChange={(e) => {
              setContent(e.currentTarget.value);
              if (error) setError(null);
            }}
            error={error}
            disabled={full}
          />
          <Counter length={content.length} max={MAX_TEXT_CHARS} testId="text-counter" />
        </div>
        <SubmitOrFull full={full} label="Add Text" loading={busy} />
      </Stack>
    </form>
  );
}

export function QaForm({ count }: { count: number }) {
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const [errors, setErrors] = useState<{ question: string | null; answer: string | null }>({ question: null, answer: null });
  const { busy, add } = useAdd();
  const full = qaFull(count);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (full) return notify.error(MSG.maxQa);
    const e = qaErrors(question, answer);
    setErrors(e);
    if (e.question || e.answer) return;
    if ((await add(() => addQa(question, answer), 'Failed to add Q&A pair')) === null) {
      setQuestion('');
      setAnswer('');
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="sm">
        {full && <FullNotice text={MSG.maxQa} />}
        <div>
          <TextInput
            label="Question"
            required
            maxLength={MAX_QUESTION_CHARS}
            value={question}
            onChange={(e) => {
              setQuestion(e.currentTarget.value);
              setErrors((x) => ({ ...x, question: null }));
            }}
            error={errors.question}
            disabled={full}
          />
          <Counter length={question.length} max={MAX_QUESTION_CHARS} testId="question-counter" />
        </div>
        <div>
          <Textarea
            label="Answer"
            required
            autosize
            minRows={3}
            maxLength={MAX_ANSWER_CHARS}
            value={answer}
            onChange={(e) => {
              setAnswer(e.currentTarget.value);
              setErrors((x) => ({ ...x, answer: null }));
            }}
            error={errors.answer}
            disabled={full}
          />
          <Counter length={answer.length} max={MAX_ANSWER_CHARS} testId="answer-counter" />
        </div>
        <Button type="submit" loading={busy} disabled={full}>
          {full ? MSG.maxQa : 'Add Q&A Pair'}
        </Button>
      </Stack>
    </form>
  );
}
