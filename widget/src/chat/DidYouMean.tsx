import { HOOKS } from '../shared/look';

interface Props {
  suggestions: string[];
  /** Only the latest reply's chips ask: once the visitor moved on, older ones are a record. */
  active: boolean;
  onAsk: (question: string) => void;
}

/** The bot's "did you mean" quick replies under its reply: a click asks that question, exactly
 *  as if the visitor had typed it. Same look as the suggested questions. */
export function DidYouMean({ suggestions, active, onAsk }: Props) {
  if (!suggestions.length) return null;
  return (
    <div role="group" className={`suggestions did-you-mean ${HOOKS.suggestions}`} aria-label="Did you mean">
      {suggestions.map((q) => (
        <button key={q} type="button" disabled={!active} onClick={() => onAsk(q)}>
          {q}
        </button>
      ))}
    </div>
  );
}
