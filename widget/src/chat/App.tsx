import { useCallback, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Composer } from './Composer';
import { ContactForm } from './ContactForm';
import { Conversation } from './Conversation';
import { ChatController, type Transport } from './controller';
import { LoadingScreen } from './LoadingScreen';
import { HANDOFF_AFTER_MS, LEAD_DELAY_MS, leadDue, showHandoffButton } from './rules';
import { chime } from './sound';
import { DEFAULT_THEME, loadTheme, type ChatTheme } from './theme';
import { scopedCustomCss } from '../shared/customCss';
import { HOOKS, KEYFRAMES, chatLook, footer, handoffIntro, headerTitle, lookVars, suggestedQuestions, waitingText } from '../shared/look';
import { httpTransport } from './transport';
import { useBotStatus } from './liveStatus';
import { isEmbedded } from './frame';

// The visitor chat page (/chat?id={botId}, also inside the widget's iframe).


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
  // One conversation for the page's life, made from the theme the page opened with (a status
  // change alters nothing it reads): switched off and on again, the chat shows the offline state
  // and then the same conversation, also with history off (which only decides whether it
  // survives a reload).
  const controller = useMemo(() => new ChatController(botId, theme, transport, () => theme.enableSounds && chime()), [botId, theme, transport]);
  return <Chat botId={botId} theme={shown} controller={controller} onRefused={onRefused} />;
}

function Header({ theme, agentName }: { theme: ChatTheme; agentName: string | null }) {
  const title = agentName ?? headerTitle(theme.headerTitle, theme.name);
  const picture = theme.botAvatar ?? theme.icon;
  return (
    <header className={`header ${HOOKS.header}`}>
      {picture && !agentName ? (
        <img className="avatar" src={picture} alt="" />
      ) : (
        <span className="avatar initial" aria-hidden="true">
          {title.trim()[0]?.toUpperCase() ?? 'A'}
        </span>
      )}
      <div className="titles">
        <h1>{title}</h1>
        <p>{agentName ? 'Human agent' : theme.headerSubtitle}</p>
      </div>
      {isEmbedded() && (
        <button type="button" className="close" aria-label="Close chat" onClick={() => window.parent.postMessage('CHATBOT', '*')}>
          ×
        </button>
      )}
    </header>
  );
}

/** Company, an "Email us" link and the branding, as the owner set them. */
function Footer({ theme }: { theme: ChatTheme }) {
  const f = footer(theme);
  if (!f.company && !f.email && !f.branding) return null;
  return (
    <p className={`branding ${HOOKS.footer}`}>
      {f.company && <span>{f.company}</span>}
      {f.email && <a href={`mailto:${f.email}`}>Email us</a>}
      {f.branding && <span>Powered by Parley</span>}
    </p>
  );
}

/** The page's frame: the look's CSS variables, its keyframes, and the owner's custom CSS (checked by the server). */
function Frame({ theme, children }: { theme: ChatTheme; children: ReactNode }) {
  const look = chatLook(theme);
  const css = useMemo(() => scopedCustomCss(theme.customCSS), [theme.customCSS]);
  return (
    <main
      data-parley-chat=""
      className={`page${theme.themeMode === 'dark' ? ' dark' : ''}`}
      style={{ background: look.background, fontSize: look.fontSize }}
    >
      <style>{KEYFRAMES}</style>
      {css && <style data-parley-custom-css="">{css}</style>}
      <section className={`chat ${HOOKS.chat}`} style={lookVars(look)}>
        {children}
      </section>
    </main>
  );
}

function Chat({ botId, theme, controller, onRefused }: { botId: string; theme: ChatTheme; controller: ChatController; onRefused?: () => void }) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const [openedAt] = useState(() => Date.now());
  const [, tick] = useState(0);
  const [leadOpen, setLeadOpen] = useState(false);
  const [agentsOnline, setAgentsOnline] = useState(theme.agentsOnline);

  // Whether someone can answer is asked again when the visitor asks for a person.
  const openHandoff = () => {
    controller.openContactForm();
    void loadTheme(botId).then((t) => setAgentsOnline(t.agentsOnline));
  };

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
      <Frame theme={theme}>
        <Header theme={theme} agentName={null} />
        <div className="offline" role="status">
          <h2>{theme.name} is offline</h2>
          <p>This assistant is not available right now. Please try again later.</p>
          {theme.supportEmail.trim() && (
            <p>
              <a href={`mailto:${theme.supportEmail.trim()}`}>Email us at {theme.supportEmail.trim()}</a>
            </p>
          )}
        </div>
        <Footer theme={theme} />
      </Frame>
    );
  }

  const handoff = showHandoffButton({
    enableHandover: theme.enableHandover,
    supportRequested: state.mode === 'waiting',
    agentConnected: state.mode === 'agent',
    messageCount,
    elapsedMs: Date.now() - openedAt,
    offered: state.handoffOffered,
  });
  const started = state.messages.some((m) => m.role === 'user');
  const suggestions = suggestedQuestions(theme);
  const presence = { ...theme, agentsOnline };
  const waiting = waitingText(presence);

  return (
    <Frame theme={theme}>
      <Header theme={theme} agentName={state.mode === 'agent' ? state.agentName : null} />
      {state.mode === 'waiting' && (
        <div className="banner" role="status">
          <strong>{waiting.title}</strong>
          <span>{waiting.detail}</span>
        </div>
      )}
      <Conversation
        messages={state.messages}
        botName={theme.name}
        welcome={theme.welcomeMessage}
        thinking={state.pending}
        agentTyping={state.agentTyping}
        showTyping={theme.enableTypingIndicator}
        onAsk={(q) => void controller.send(q)}
        onRetry={(id) => void controller.retry(id)}
      />
      {!started && suggestions.length > 0 && (
        <div className={`suggestions ${HOOKS.suggestions}`} aria-label="Suggested questions">
          {suggestions.map((q) => (
            <button key={q} type="button" disabled={state.pending} onClick={() => void controller.send(q)}>
              {q}
            </button>
          ))}
        </div>
      )}
      {state.contactFormOpen && (
        <ContactForm
          title="Talk to a human"
          intro={handoffIntro(presence)}
          email={agentsOnline ? null : theme.supportEmail.trim() || null}
          submitLabel="Request Support"
          skipLabel="Skip & Request"
          onSubmit={(d) => void controller.requestSupport(d)}
          onSkip={() => void controller.requestSupport(null)}
          busy={state.pending}
        />
      )}
      {leadOpen && due && !state.contactFormOpen && (
        <ContactForm
          title="Get Better Support"
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
        <button type="button" className="handoff" onClick={openHandoff} disabled={state.pending}>
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
      <Footer theme={theme} />
    </Frame>
  );
}
