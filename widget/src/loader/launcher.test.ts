import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatSrc, mount, optionsFromScript, type Launcher } from './launcher';

let launcher: Launcher | null = null;
afterEach(() => {
  launcher?.destroy();
  launcher = null;
});

const button = (l: Launcher) => l.host.shadowRoot!.querySelector('button')!;
const frame = (l: Launcher) => l.host.shadowRoot!.querySelector('iframe');

describe('widget.js launcher', () => {
  it('reads data-bot-id, data-theme and the origin from its script tag', () => {
    const s = document.createElement('script');
    s.src = 'https://parley.example.com/widget.js';
    s.dataset.botId = 'bot-1';
    s.dataset.theme = 'dark';
    expect(optionsFromScript(s)).toEqual({ botId: 'bot-1', origin: 'https://parley.example.com', theme: 'dark' });
    delete s.dataset.botId;
    expect(optionsFromScript(s)).toBeNull();
    expect(optionsFromScript(null)).toBeNull();
  });

  it('draws a launcher in a shadow root and opens the chat iframe on click', () => {
    launcher = mount({ botId: 'bot 1', origin: 'https://parley.example.com' });
    expect(document.body.contains(launcher.host)).toBe(true);
    expect(frame(launcher)).toBeNull(); // nothing loads until opened
    button(launcher).click();
    expect(frame(launcher)!.src).toBe('https://parley.example.com/chat?id=bot%201');
    expect(frame(launcher)!.hidden).toBe(false);
    expect(button(launcher).getAttribute('aria-label')).toBe('Close chat');
    button(launcher).click();
    expect(frame(launcher)!.hidden).toBe(true);
  });

  it("closes on a 'CHATBOT' message from the chat's origin only", () => {
    launcher = mount({ botId: 'b', origin: 'https://parley.example.com' });
    launcher.open();
    window.dispatchEvent(new MessageEvent('message', { data: 'CHATBOT', origin: 'https://evil.example.com' }));
    expect(frame(launcher)!.hidden).toBe(false);
    window.dispatchEvent(new MessageEvent('message', { data: 'CHATBOT', origin: 'https://parley.example.com' }));
    expect(frame(launcher)!.hidden).toBe(true);
    expect(launcher.host.shadowRoot!.activeElement).toBe(button(launcher));
  });

  it('builds the chat URL', () => {
    expect(chatSrc('http://localhost:8080', 'abc')).toBe('http://localhost:8080/chat?id=abc');
  });
});

describe("the bot's look", () => {
  it('places the launcher and the chat by chatPosition and sizes the chat by chatSize', () => {
    launcher = mount({ botId: 'b', origin: 'https://parley.example.com' });
    launcher.apply({ primaryColour: '#ff0000', chatPosition: 'top-left', chatSize: 'large' });
    const b = button(launcher);
    expect(b.style.top).toBe('20px');
    expect(b.style.left).toBe('20px');
    expect(b.style.bottom).toBe('');
    expect(b.style.background).toBe('rgb(255, 0, 0)');
    launcher.open();
    expect(frame(launcher)!.style.width).toBe('440px');
    expect(frame(launcher)!.style.height).toBe('700px');
    expect(frame(launcher)!.style.top).toBe('88px');
  });

  it("gives the chat window the editor's corners, shadow and opening animation", () => {
    launcher = mount({ botId: 'b', origin: 'https://parley.example.com' });
    launcher.apply({ borderRadius: 20, shadowIntensity: 'heavy', animationStyle: 'scale' });
    launcher.open();
    const f = frame(launcher)!;
    expect(f.style.borderRadius).toBe('20px');
    expect(f.style.boxShadow).toBe('0 14px 36px rgba(0,0,0,0.32)');
    expect(f.style.animation).toContain('parley-scale');
  });

  it('shows the popup message until the chat opens, and opens by itself after autoOpenDelay', () => {
    vi.useFakeTimers();
    launcher = mount({ botId: 'b', origin: 'https://parley.example.com' });
    launcher.apply({ popupMessage: 'hey there!', autoOpenDelay: 3 });
    const popup = launcher.host.shadowRoot!.querySelector<HTMLElement>('.p')!;
    expect(popup.textContent).toContain('hey there!');
    expect(frame(launcher)).toBeNull();
    vi.advanceTimersByTime(2999);
    expect(frame(launcher)).toBeNull();
    vi.advanceTimersByTime(1);
    expect(frame(launcher)!.hidden).toBe(false);
    expect(popup.hidden).toBe(true);
    vi.useRealTimers();
  });

  it('does not open by itself once the visitor has opened and closed the chat', () => {
    vi.useFakeTimers();
    launcher = mount({ botId: 'b', origin: 'https://parley.example.com' });
    launcher.apply({ autoOpenDelay: 3 });
    button(launcher).click();
    button(launcher).click();
    expect(frame(launcher)!.hidden).toBe(true);
    vi.advanceTimersByTime(3000);
    expect(frame(launcher)!.hidden).toBe(true);
    vi.useRealTimers();
  });

  it("uses the whole screen for chatSize 'full'", () => {
    launcher = mount({ botId: 'b', origin: 'https://parley.example.com' });
    launcher.apply({ chatSize: 'full' });
    launcher.open();
    expect(frame(launcher)!.classList.contains('full')).toBe(true);
  });
});
