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
}

/** Name, email (email type), phone, company: the handoff request form and the lead card. */
export function ContactForm({ title, intro, email, submitLabel, skipLabel, onSubmit, onSkip }: Props) {
  const [d, setD] = useState<ContactDetails>({ name: '', email: '', phone: '', company: '' });
  const field = (key: keyof ContactDetails, label: string, type: 'text' | 'email' | 'tel', autoComplete: string) => (
    <label className="field">
      <span>{label}</span>
      <input
        // Preact's types check each input kind on its own; these three take the same attributes.
        type={type as 'text'}
        value={d[key]}
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
        <button type="submit" className="primary">
          {submitLabel}
        </button>
        <button type="button" onClick={onSkip}>
          {skipLabel}
        </button>
      </div>
    </form>
  );
}
