import { useEffect, useRef } from 'react';
import type { ChatMessage } from './controller';
import { THINKING_PHRASES, THINKING_ROTATE_MS } from './rules';
import { useRotating } from './useRotating';
import { HOOKS } from '../shared/look';
import { DidYouMean } from './DidYouMean';

/** A bubble's classes: the page's own and the hooks custom CSS targets. */
const bubbleClass = (role: string) =>
  `bubble ${role} ${HOOKS.bubble}${role === 'user' ? ` ${HOOKS.user}` : role === 'bot' ? ` ${HOOKS.bot}` : ''}`;

interface Props {
  messages: ChatMessage[];
  botName: string;
  welcome: string;
  thinking: boolean;
  agentTyping: boolean;
  showTyping: boolean;
  /** Sends a "did you mean" chip as the visitor's message. */
  onAsk: (question: string) => void;
  /** Sends a message marked not sent again. */
  onRetry: (id: string) => void;
}

function sender(m: ChatMessage, botName: string): string {
  if (m.role === 'user') return 'You';
  if (m.role === 'system') return 'System';
  if (m.role === 'agent') return m.senderName || 'Agent';
  return botName;
}

function Sources({ m }: { m: ChatMessage }) {
  if (!m.sources?.length) return null;
  return (
    <ul className="sources" aria-label="Sources">
      {m.sources.map((s, i) => {
        const label = s.page ? `${s.title}, page ${s.page}` : s.title;
        return (
          <li key={i}>{s.url ? <a href={s.url} target="_blank" rel="noreferrer noopener">{label}</a> : label}</li>
        );
      })}
    </ul>
  );
}

/** The messages, then the assistant's thinking phrase or the agent's typing indicator. */
// An error is announced at once. Preact's types list only the roles that ARIA in HTML allows on
// <article>, which leaves out 'alert'; browsers and screen readers honour it all the same.
const ALERT_ROLE: Record<string, string> = { role: 'alert' };

export function Conversation({ messages, botName, welcome, thinking, agentTyping, showTyping, onAsk, onRetry }: Props) {
  const end = useRef<HTMLDivElement>(null);
  const phrase = useRotating(THINKING_PHRASES.length, THINKING_ROTATE_MS, thinking);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages, thinking, agentTyping]);
  const streaming = messages.some((m) => m.streaming);
  return (
    <div className={`messages ${HOOKS.messages}`} aria-live="polite">
      <article className={bubbleClass('bot')} aria-label={botName}>
        {welcome}
      </article>
      {messages.map((m, i) => (
        <article
          key={m.id}
          aria-label={sender(m, botName)}
          className={`${bubbleClass(m.role)}${m.isError ? ' error' : ''}${m.failed ? ' failed' : m.local ? ' sending' : ''}`}
          {...(m.isError ? ALERT_ROLE : undefined)}
        >
          {m.role === 'agent' && <span className="who">{sender(m, botName)}</span>}
          <span className="text">{m.content}</span>
          {m.failed && (
            <span className="not-sent">
              Not sent.{' '}
              <button type="button" className="retry" disabled={thinking} onClick={() => onRetry(m.id)}>
                Retry
              </button>
            </span>
          )}
          <Sources m={m} />
          {m.suggestions && (
            <DidYouMean suggestions={m.suggestions} active={i === messages.length - 1 && !thinking} onAsk={onAsk} />
          )}
        </article>
      ))}
      {thinking && !streaming && showTyping && (
        <div className="typing" role="status" aria-label="Assistant is typing">
          <span className="dots" aria-hidden="true">
            <i />
            <i />
            <i />
          </span>
          {THINKING_PHRASES[phrase]}
        </div>
      )}
      {agentTyping && (
        <div className="typing" role="status" aria-label="Agent is typing">
          <span className="dots" aria-hidden="true">
            <i />
            <i />
            <i />
          </span>
          typing...
        </div>
      )}
      <div ref={end} />
    </div>
  );
}
