import { useRef, useState, type KeyboardEvent } from 'react';
import { counter, sendable } from './rules';
import { HOOKS } from '../shared/look';

interface Props {
  placeholder: string;
  maxLength: number;
  pending: boolean;
  onSend: (text: string) => void;
  onTyping: (typing: boolean) => void;
}

/** The message box: Enter sends, Shift+Enter starts a new line; nothing empty, nothing while a
 *  reply is pending, nothing over the bot's maximum (the counter turns red and the text stays). */
export function Composer({ placeholder, maxLength, pending, onSend, onTyping }: Props) {
  const [text, setText] = useState('');
  const typing = useRef(false);
  const ready = sendable(text, pending, maxLength);
  const count = counter(text, maxLength);

  const setTyping = (on: boolean) => {
    if (typing.current !== on) {
      typing.current = on;
      onTyping(on);
    }
  };
  const send = () => {
    if (!ready) return;
    onSend(ready);
    setText('');
    setTyping(false);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  };
  return (
    <div className={`composer ${HOOKS.composer}`}>
      <textarea
        aria-label="Type your message"
        placeholder={placeholder}
        value={text}
        rows={1}
        onChange={(e) => {
          setText(e.currentTarget.value);
          setTyping(e.currentTarget.value.trim() !== '');
        }}
        onBlur={() => setTyping(false)}
        onKeyDown={onKeyDown}
      />
      <span className={`counter${count.over ? ' over' : ''}`} aria-live="polite">
        {count.label}
      </span>
      <button type="button" className="send" aria-label="Send message" disabled={!ready} onClick={send}>
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M2 21 23 12 2 3v7l15 2-15 2z" />
        </svg>
      </button>
    </div>
  );
}
