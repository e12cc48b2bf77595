// The composer's and the resolve form's rules (spec 2 §5), apart from the components that use them.

/** The counter's ceiling: shown, not enforced (spec 2 §5). */
export const COMPOSER_MAX = 500;
export const NOTES_MAX = 2000;
export const DEFAULT_RATING = 5;

/** Empty or whitespace text is not sent. */
export function canSend(text: string): boolean {
  return text.trim().length > 0;
}

/** Enter sends, Shift+Enter inserts a newline (and so does Enter while composing with an IME). */
export function composerKey(e: { key: string; shiftKey: boolean; isComposing?: boolean }): 'send' | 'newline' | null {
  if (e.key !== 'Enter') return null;
  if (e.shiftKey || e.isComposing) return 'newline';
  return 'send';
}

export function counterText(text: string): string {
  return `${text.length}/${COMPOSER_MAX}`;
}

export interface ResolveForm {
  rating: number;
  notes: string;
}

export function emptyResolveForm(): ResolveForm {
  return { rating: DEFAULT_RATING, notes: '' };
}

/** A rating is a whole number from 1 to 5; anything else falls back to the default. */
export function clampRating(value: number): number {
  if (!Number.isFinite(value)) return DEFAULT_RATING;
  return Math.min(5, Math.max(1, Math.round(value)));
}

/** The form's error, or null when it can be sent (notes are optional). */
export function resolveFormError(form: ResolveForm): string | null {
  if (!Number.isInteger(form.rating) || form.rating < 1 || form.rating > 5) return 'Rating must be between 1 and 5';
  if (form.notes.trim().length > NOTES_MAX) return `Notes must be at most ${NOTES_MAX} characters`;
  return null;
}

/** An inline edit cannot be saved empty. */
export function editError(text: string): string | null {
  return text.trim() ? null : 'Message cannot be empty';
}
