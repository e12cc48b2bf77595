// The embed loader: a launcher button in a shadow root (the host page's CSS cannot reach it) that
// opens the bot's chat page in an iframe and closes when that page posts 'CHATBOT'.

export interface LauncherOptions {
  botId: string;
  /** Origin of the Parley server, taken from the script's own src. */
  origin: string;
  theme?: 'light' | 'dark';
}

export interface Launcher {
  host: HTMLElement;
  open(): void;
  close(): void;
  destroy(): void;
}

const CSS = `
:host{all:initial}
.b{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border:0;border-radius:50%;cursor:pointer;
box-shadow:0 4px 14px rgba(0,0,0,.25);z-index:2147483646;display:flex;align-items:center;justify-content:center}
.b svg{width:26px;height:26px;fill:#fff}
.f{position:fixed;right:20px;bottom:88px;width:380px;height:600px;max-width:calc(100vw - 40px);
max-height:calc(100vh - 108px);border:0;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.25);
z-index:2147483647;background:#fff}
.f[hidden]{display:none}
`;

const CHAT_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';
const CLOSE_ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7 4.3 4.3l6.3 6.3 6.3-6.3z"/></svg>';

export function chatSrc(origin: string, botId: string): string {
  return `${origin}/chat?id=${encodeURIComponent(botId)}`;
}

export function mount({ botId, origin, theme = 'light' }: LauncherOptions): Launcher {
  const host = document.createElement('div');
  host.setAttribute('data-parley-widget', botId);
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = `<style>${CSS}</style>`;

  const button = document.createElement('button');
  button.className = 'b';
  button.type = 'button';
  button.style.background = theme === 'dark' ? '#1c1d1d' : '#3B82F6';
  root.appendChild(button);

  let frame: HTMLIFrameElement | null = null;
  let opened = false;

  const render = () => {
    button.innerHTML = opened ? CLOSE_ICON : CHAT_ICON;
    button.setAttribute('aria-label', opened ? 'Close chat' : 'Open chat');
    button.setAttribute('aria-expanded', String(opened));
    if (frame) frame.hidden = !opened;
  };

  const open = () => {
    if (!frame) {
      // Created on first open, so a page that never opens the chat never loads it.
      frame = document.createElement('iframe');
      frame.className = 'f';
      frame.title = 'Chat';
      frame.src = chatSrc(origin, botId);
      frame.allow = 'clipboard-write';
      root.appendChild(frame);
    }
    opened = true;
    render();
  };
  const close = () => {
    opened = false;
    render();
  };

  const onMessage = (e: MessageEvent) => {
    if (e.origin !== origin) return;
    const d = e.data as unknown;
    if (d === 'CHATBOT' || (typeof d === 'object' && d !== null && (d as { type?: unknown }).type === 'CHATBOT')) close();
  };

  button.addEventListener('click', () => (opened ? close() : open()));
  window.addEventListener('message', onMessage);
  render();
  document.body.appendChild(host);

  return {
    host,
    open,
    close,
    destroy() {
      window.removeEventListener('message', onMessage);
      host.remove();
    },
  };
}

/** Reads data-bot-id / data-theme and the server origin from the loader's own script tag. */
export function optionsFromScript(script: HTMLScriptElement | null): LauncherOptions | null {
  const botId = script?.dataset.botId?.trim();
  if (!script || !botId) return null;
  return {
    botId,
    origin: new URL(script.src, window.location.href).origin,
    theme: script.dataset.theme === 'dark' ? 'dark' : 'light',
  };
}
