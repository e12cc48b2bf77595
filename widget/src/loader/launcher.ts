// The embed loader: a launcher button in a shadow root (the host page's CSS cannot reach it) that
// opens the bot's chat page in an iframe and closes when that page posts 'CHATBOT'.
import { CHAT_SIZES, KEYFRAMES, SHADOWS, animationCss } from '../shared/look';

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
  apply(look: LauncherLook): void;
  destroy(): void;
}

/** What the launcher takes from the bot's public look (GET /api/bots/{id}/theme). */
export interface LauncherLook {
  primaryColour?: string;
  chatPosition?: string;
  chatSize?: string;
  popupMessage?: string;
  /** Seconds before the chat opens by itself; 0 = never. */
  autoOpenDelay?: number;
  /** The chat window's corners (px), shadow and opening animation, as in the editor's preview. */
  borderRadius?: number;
  shadowIntensity?: string;
  animationStyle?: string;
}


const CSS = `${KEYFRAMES}
:host{all:initial}
.b{position:fixed;width:56px;height:56px;border:0;border-radius:50%;cursor:pointer;
box-shadow:0 4px 14px rgba(0,0,0,.25);z-index:2147483646;display:flex;align-items:center;justify-content:center}
.b svg{width:26px;height:26px;fill:#fff}
.f{position:fixed;border:0;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.25);z-index:2147483647;background:#fff;
max-width:calc(100vw - 40px);max-height:calc(100vh - 108px)}
.f[hidden],.p[hidden]{display:none}
.p{position:fixed;max-width:240px;padding:10px 28px 10px 12px;background:#fff;color:#1f2937;border-radius:10px;
font:14px/1.4 system-ui,sans-serif;box-shadow:0 4px 14px rgba(0,0,0,.18);z-index:2147483646;cursor:pointer}
.p button{position:absolute;top:4px;right:4px;border:0;background:none;cursor:pointer;font-size:16px;color:#64748b}
.full{inset:0!important;width:100vw!important;height:100vh!important;max-width:none;max-height:none;border-radius:0}
@media (max-width:479px){.f{inset:0!important;width:100vw!important;height:100vh!important;max-width:none;max-height:none;border-radius:0}}
`;

/** Places an element in a corner: `offset` px from the corner's two edges. */
function corner(el: HTMLElement, position: string, offset: number) {
  const [v, h] = (/^(top|bottom)-(left|right)$/.test(position) ? position : 'bottom-right').split('-');
  el.style.setProperty(v, `${offset}px`);
  el.style.setProperty(h, '20px');
}

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
  /** Opened at least once: an auto-open still to come would reopen a chat the visitor closed. */
  let touched = false;
  let look: LauncherLook = {};
  let popup: HTMLElement | null = null;
  corner(button, 'bottom-right', 20);

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
      place(frame);
      root.appendChild(frame);
    }
    opened = true;
    touched = true;
    if (popup) popup.hidden = true;
    // Restarted on each open: the window comes in as the owner's animation style says.
    frame.style.animation = 'none';
    void frame.offsetWidth;
    frame.style.animation = animationCss(look.animationStyle ?? 'slide-up');
    render();
  };

  const place = (f: HTMLIFrameElement) => {
    const position = look.chatPosition ?? 'bottom-right';
    if (typeof look.borderRadius === 'number') f.style.borderRadius = `${look.borderRadius}px`;
    if (look.shadowIntensity && SHADOWS[look.shadowIntensity]) f.style.boxShadow = SHADOWS[look.shadowIntensity] ?? '';
    if (look.chatSize === 'full') {
      f.classList.add('full');
      return;
    }
    const size = CHAT_SIZES[look.chatSize ?? 'medium'] ?? CHAT_SIZES.medium;
    f.style.width = `${size?.width ?? 380}px`;
    f.style.height = `${size?.height ?? 600}px`;
    corner(f, position, 88);
  };

  /** Applies the bot's look once it is known; until then the launcher uses the defaults. */
  const apply = (l: LauncherLook) => {
    look = l;
    if (l.primaryColour) button.style.background = l.primaryColour;
    button.style.removeProperty('right');
    button.style.removeProperty('bottom');
    corner(button, l.chatPosition ?? 'bottom-right', 20);
    if (frame) place(frame);
    if (l.popupMessage && !opened) {
      popup = document.createElement('div');
      popup.className = 'p';
      popup.setAttribute('role', 'status');
      popup.textContent = l.popupMessage;
      const x = document.createElement('button');
      x.type = 'button';
      x.setAttribute('aria-label', 'Dismiss');
      x.textContent = '×';
      x.addEventListener('click', (e) => {
        e.stopPropagation();
        if (popup) popup.hidden = true;
      });
      popup.appendChild(x);
      popup.addEventListener('click', open);
      corner(popup, l.chatPosition ?? 'bottom-right', 88);
      root.appendChild(popup);
    }
    const delay = Number(l.autoOpenDelay ?? 0);
    // Only if the visitor has not opened (and perhaps closed) the chat by then themselves.
    if (delay > 0) setTimeout(() => !touched && open(), delay * 1000);
  };
  const close = () => {
    opened = false;
    render();
  };

  const onMessage = (e: MessageEvent) => {
    if (e.origin !== origin) return;
    const d = e.data as unknown;
    if (d === 'CHATBOT' || (typeof d === 'object' && d !== null && (d as { type?: unknown }).type === 'CHATBOT')) {
      close();
      // Closed from inside the chat: focus was in the frame now hidden, so a keyboard user
      // would be left nowhere. It goes back to the launcher that opened it.
      button.focus();
    }
  };

  button.addEventListener('click', () => (opened ? close() : open()));
  window.addEventListener('message', onMessage);
  render();
  document.body.appendChild(host);

  return {
    host,
    open,
    close,
    apply,
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
