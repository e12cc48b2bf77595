import { useEffect, useState } from 'react';
import { DEFAULT_THEME, loadTheme, type ChatTheme } from './theme';

// The visitor chat page. For now: the bot's header and welcome message; the conversation itself
// arrives with the visitor-chat issue.

const embedded = () => {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
};

export function App({ search = window.location.search }: { search?: string }) {
  const botId = new URLSearchParams(search).get('id');
  const [theme, setTheme] = useState<ChatTheme | null>(null);

  useEffect(() => {
    if (!botId) return;
    const ctrl = new AbortController();
    void loadTheme(botId, ctrl.signal).then((t) => {
      if (!ctrl.signal.aborted) setTheme(t);
    });
    return () => ctrl.abort();
  }, [botId]);

  if (!botId) {
    return (
      <main className="page" style={{ background: DEFAULT_THEME.backgroundColour }}>
        <p className="notice">No assistant was chosen. Open this page with ?id= and a bot id.</p>
      </main>
    );
  }
  if (!theme) {
    return (
      <main className="page" style={{ background: DEFAULT_THEME.backgroundColour }}>
        <p className="notice" role="status">
          Loading...
        </p>
      </main>
    );
  }

  const dark = theme.themeMode === 'dark';
  return (
    <main
      className={`page${dark ? ' dark' : ''}`}
      style={{ background: theme.backgroundColour, fontSize: theme.typography }}
    >
      <section className="chat">
        <header className="header" style={{ background: theme.primaryColour }}>
          {theme.icon ? (
            <img className="avatar" src={theme.icon} alt="" />
          ) : (
            <span className="avatar initial" aria-hidden="true">
              {theme.name.trim()[0]?.toUpperCase() ?? 'A'}
            </span>
          )}
          <div className="titles">
            <h1>{theme.name}</h1>
            <p>We're here to help</p>
          </div>
          {embedded() && (
            <button
              type="button"
              className="close"
              aria-label="Close chat"
              onClick={() => window.parent.postMessage('CHATBOT', '*')}
            >
              ×
            </button>
          )}
        </header>
        <ol className="messages" aria-live="polite">
          <li className="bubble bot">{theme.welcomeMessage}</li>
        </ol>
      </section>
    </main>
  );
}
