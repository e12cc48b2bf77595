import { afterEach, describe, expect, it } from 'vitest';
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
  });

  it('builds the chat URL', () => {
    expect(chatSrc('http://localhost:8080', 'abc')).toBe('http://localhost:8080/chat?id=abc');
  });
});
