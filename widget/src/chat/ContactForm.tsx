import { useState, type FormEvent } from 'react';
import { contactOrNull, type ContactDetails } from './rules';

interface Props {
  title: string;
  intro: string;
  /** A support address offered beside the form (the team is away). */
  email?: string | null;
  submitLabel: string;
  skipLabel: string;
  onSubmit: (details: Partial<ContactDetails> | null) => void;
  onSkip: () => void;
  /** A reply is on its way: the request waits for it (nothing is sent while one is pending). */
  busy?: boolean;
}

/** The server's limits on a visitor's details (`engine/src/leads.rs`), kept by the inputs. */
const MAX_CHARS: Record<keyof ContactDetails, number> = { name: 100, email: 254, phone: 40, company: 100 };
/** An address with a dotted domain, as the server checks it (the browser's own check allows `a@b`). */
const EMAIL_PATTERN = '[^@\\s]+@[^@\\s]+\\.[^@\\s]+';

/** Name, email (email type), phone, company: the handoff request form and the lead card. */
export function ContactForm({ title, intro, email, submitLabel, skipLabel, onSubmit, onSkip, busy = false }: Props) {
  const [d, setD] = useState<ContactDetails>({ name: '', email: '', phone: '', company: '' });
  const field = (key: keyof ContactDetails, label: string, type: 'text' | 'email' | 'tel', autoComplete: string) => (
    <label className="field">
      <span>{label}</span>
      <input
        // Preact's types check each input kind on its own; these three take the same attributes.
        type={type as 'text'}
        value={d[key]}
        maxLength={MAX_CHARS[key]}
        pattern={type === 'email' ? EMAIL_PATTERN : undefined}
        autoComplete={autoComplete}
        onChange={(e) => setD({ ...d, [key]: e.currentTarget.value })}
      />
    </label>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(contactOrNull(d));
  };
  return (
    <form className="contact" aria-label={title} onSubmit={submit}>
      <h2>{title}</h2>
      <p>{intro}</p>
      {email && (
        <p>
          <a href={`mailto:${email}`}>Email us at {email}</a>
        </p>
      )}
      {field('name', 'Name', 'text', 'name')}
      {field('email', 'Email', 'email', 'email')}
      {field('phone', 'Phone (Optional)', 'tel', 'tel')}
      {field('company', 'Company (Optional)', 'text', 'organization')}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onSkip} disabled={busy}>
          {skipLabel}
        </button>
      </div>
    </form>
  );
}
