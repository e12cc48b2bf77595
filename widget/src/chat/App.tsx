import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { Composer } from './Composer';
import { ContactForm } from './ContactForm';
import { Conversation } from './Conversation';
import { ChatController, type Transport } from './controller';
import { LoadingScreen } from './LoadingScreen';
import { HANDOFF_AFTER_MS, LEAD_DELAY_MS, WAITING_TEXT, WAIT_ESTIMATE_TEXT, leadDue, showHandoffButton } from './rules';
import { chime } from './sound';
import { DEFAULT_THEME, loadTheme, type ChatTheme } from './theme';
import { httpTransport } from './transport';
import { useBotStatus } from './liveStatus';

// The visitor chat page (/chat?id={botId}, also inside the widget's iframe).

const embedded = () => {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
};

interface Props {
  search?: string;
  transport?: Transport;
}

export function App({ search = window.location.search, transport = httpTransport }: Props) {
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
  if (!theme) return <LoadingScreen />;
  return <LiveChat botId={botId} theme={theme} transport={transport} />;
}

/** The chat with the bot's status kept current (switched off or on in the dashboard meanwhile). */
function LiveChat({ botId, theme, transport }: { botId: string; theme: ChatTheme; transport: Transport }) {
  const [refusals, setRefusals] = useState(0);
  const status = useBotStatus(botId, theme.status, refusals);
  // A new theme object only when the status changed: the chat restarts from the kept conversation.
  const shown = useMemo(() => (status && status !== theme.status ? { ...theme, status } : theme), [theme, status]);
  const onRefused = useCallback(() => setRefusals((n) => n + 1), []);
  return <Chat botId={botId} theme={shown} transport={transport} onRefused={onRefused} />;
}

function Header({ theme, agentName }: { theme: ChatTheme; agentName: string | null }) {
  // The header title the owner chose; the stock 'Chat Support' gives way to the bot's own name.
  const custom = theme.headerTitle.trim() && theme.headerTitle !== 'Chat Support' ? theme.headerTitle : null;
  const title = agentName ?? custom ?? theme.name;
  return (
    <header className="header" style={{ background: theme.primaryColour }}>
      {theme.icon && !agentName ? (
        <img className="avatar" src={theme.icon} alt="" />
      ) : (
        <span className="avatar initial" aria-hidden="true">
          {title.trim()[0]?.toUpperCase() ?? 'A'}
        </span>
      )}
      <div className="titles">
        <h1>{title}</h1>
        <p>{agentName ? 'Human agent' : theme.headerSubtitle}</p>
      </div>
      {embedded() && (
        <button type="button" className="close" aria-label="Close chat" onClick={() => window.parent.postMessage('CHATBOT', '*')}>
          ×
        </button>
      )}
    </header>
  );
}

function Chat({ botId, theme, transport, onRefused }: { botId: string; theme: ChatTheme; transport: Transport; onRefused?: () => void }) {
  const controller = useMemo(
    () => new ChatController(botId, theme, transport, () => theme.enableSounds && chime()),
    [botId, theme, transport],
  );
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const [openedAt] = useState(() => Date.now());
  const [, tick] = useState(0);
  const [leadOpen, setLeadOpen] = useState(false);

  useEffect(() => {
    void controller.restore();
    return () => controller.dispose();
  }, [controller]);

  // The talk-to-human button may appear by time alone: re-render when that time comes.
  useEffect(() => {
    const t = setTimeout(() => tick((n) => n + 1), HANDOFF_AFTER_MS);
    return () => clearTimeout(t);
  }, []);

  const messageCount = controller.messageCount();
  const due = leadDue({
    enableLeadCapture: theme.enableLeadCapture,
    leadGiven: state.leadGiven,
    leadDismissed: state.leadDismissed,
    messageCount,
    pending: state.pending,
  });
  useEffect(() => {
    if (!due || leadOpen) return;
    const t = setTimeout(() => setLeadOpen(true), LEAD_DELAY_MS);
    return () => clearTimeout(t);
  }, [due, leadOpen]);

  // A refused message may mean the bot was switched off meanwhile: the page checks.
  const refused = state.messages.filter((m) => m.isError).length;
  useEffect(() => {
    if (refused > 0) onRefused?.();
  }, [refused, onRefused]);

  if (theme.status === 'inactive') {
    return (
      <main className="page" style={{ background: theme.backgroundColour }}>
        <section className="chat">
          <Header theme={theme} agentName={null} />
          <div className="offline" role="status">
            <h2>{theme.name} is offline</h2>
            <p>This assistant is not available right now. Please try again later.</p>
          </div>
        </section>
      </main>
    );
  }

  const handoff = showHandoffButton({
    enableHandover: theme.enableHandover,
    supportRequested: state.mode === 'waiting',
    agentConnected: state.mode === 'agent',
    messageCount,
    elapsedMs: Date.now() - openedAt,
  });
  const started = state.messages.some((m) => m.role === 'user');
  const dark = theme.themeMode === 'dark';

  return (
    <main className={`page${dark ? ' dark' : ''}`} style={{ background: theme.backgroundColour, fontSize: theme.typography }}>
      <section className="chat" style={{ ['--primary' as string]: theme.primaryColour }}>
        <Header theme={theme} agentName={state.mode === 'agent' ? state.agentName : null} />
        {state.mode === 'waiting' && (
          <div className="banner" role="status">
            <strong>{WAITING_TEXT}</strong>
            <span>{WAIT_ESTIMATE_TEXT}</span>
          </div>
        )}
        <Conversation
          messages={state.messages}
          botName={theme.name}
          welcome={theme.welcomeMessage}
          thinking={state.pending}
          agentTyping={state.agentTyping}
          showTyping={theme.enableTypingIndicator}
        />
        {!started && theme.customQuestions.length > 0 && (
          <div className="suggestions" aria-label="Suggested questions">
            {theme.customQuestions.map((q) => (
              <button key={q} type="button" disabled={state.pending} onClick={() => void controller.send(q)}>
                {q}
              </button>
            ))}
          </div>
        )}
        {state.contactFormOpen && (
          <ContactForm
            title="Talk to a human"
            intro="Leave your details so our team can follow up, or skip and we'll connect you now."
            submitLabel="Request Support"
            skipLabel="Skip & Request"
            onSubmit={(d) => void controller.requestSupport(d)}
            onSkip={() => void controller.requestSupport(null)}
          />
        )}
        {leadOpen && due && !state.contactFormOpen && (
          <ContactForm
            title="Stay in touch"
            intro={theme.leadCaptureMessage}
            submitLabel="Continue"
            skipLabel="Skip"
            onSubmit={(d) => {
              setLeadOpen(false);
              void controller.leaveDetails(d);
            }}
            onSkip={() => {
              setLeadOpen(false);
              controller.dismissLead();
            }}
          />
        )}
        {handoff && !state.contactFormOpen && (
          <button type="button" className="handoff" onClick={() => controller.openContactForm()}>
            Talk to a human
          </button>
        )}
        <Composer
          placeholder={theme.placeholder}
          maxLength={theme.maxMessageLength}
          pending={state.pending}
          onSend={(text) => void controller.send(text)}
          onTyping={(on) => controller.typing(on)}
        />
        {theme.showBranding && <p className="branding">Powered by Parley</p>}
      </section>
    </main>
  );
}
