// The Training page's limits and messages (spec 1 §5 and §9), as pure functions the forms and
// their tests share.

export const MAX_PDF_BYTES = 10 * 1024 * 1024; // 10485760
export const MAX_SOURCES = 20;
export const MAX_TEXT_CHARS = 5000;
export const MAX_QA_PAIRS = 50;
export const MAX_QUESTION_CHARS = 150;
export const MAX_ANSWER_CHARS = 500;
export const MAX_TITLE_CHARS = 200;

export const MSG = {
  pdfTooLarge: 'File size must be less than 10MB',
  maxSources: 'Maximum number of sources reached',
  maxSourcesButton: 'Maximum sources reached',
  maxSourcesHint: 'Remove some sources to add new ones',
  maxQa: 'Maximum number of Q&A pairs reached',
  urlRequired: 'A training URL is required',
  textRequired: 'Text is required',
  questionRequired: 'Question is required',
  answerRequired: 'Answer is required',
} as const;

export type CounterColour = 'dimmed' | 'yellow' | 'red';

/** Above 90 % of the limit red, above 70 % yellow (spec 1 §5). */
export function counterColour(length: number, max: number): CounterColour {
  const ratio = length / max;
  if (ratio > 0.9) return 'red';
  if (ratio > 0.7) return 'yellow';
  return 'dimmed';
}

/** The error for a chosen PDF, or null when it may be uploaded. */
export function pdfError(file: Pick<File, 'size'> | null): string | null {
  if (!file) return null;
  return file.size > MAX_PDF_BYTES ? MSG.pdfTooLarge : null;
}

export function sourcesFull(count: number): boolean {
  return count >= MAX_SOURCES;
}

export function qaFull(count: number): boolean {
  return count >= MAX_QA_PAIRS;
}

export function urlError(url: string): string | null {
  return url.trim() ? null : MSG.urlRequired;
}

export function textError(content: string): string | null {
  if (!content.trim()) return MSG.textRequired;
  if (content.length > MAX_TEXT_CHARS) return `Text must be at most ${MAX_TEXT_CHARS} characters`;
  return null;
}

export function qaErrors(question: string, answer: string): { question: string | null; answer: string | null } {
  return {
    question: !question.trim()
      ? MSG.questionRequired
      : question.length > MAX_QUESTION_CHARS
        ? `Question must be at most ${MAX_QUESTION_CHARS} characters`
        : null,
    answer: !answer.trim()
      ? MSG.answerRequired
      : answer.length > MAX_ANSWER_CHARS
        ? `Answer must be at most ${MAX_ANSWER_CHARS} characters`
        : null,
  };
}
