import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The lead form's details go out on a live connection of their own (the widget's leave-details).
type Ack = { success: boolean; error?: string };
const sockets: { opts: Record<string, unknown>; emitted: [string, unknown][]; closed: boolean }[] = [];
let detailsAck: () => Promise<Ack> = async () => ({ success: true });
vi.mock('socket.io-client', () => ({
  io: (_url: string, opts: Record<string, unknown>) => {
    const s = { opts, emitted: [] as [string, unknown][], closed: false };
    sockets.push(s);
    return {
      timeout: () => ({
        emitWithAck: (event: string, payload: unknown) => {
          s.emitted.push([event, payload]);
          return detailsAck();
        },
      }),
      close: () => {
        s.closed = true;
      },
    };
  },
}));
import { mockFetch, bot } from '../../../../test-utils/fetch';
import { bots } from '@/features/bots/stores/bots';
import { customize, loadFromBot, resetCustomization, saveCustomization, setSetting } from './customize';
import { DEFAULTS, PALETTES, RESET_DEFAULTS, cleanQuestions, savePayload, settingsFromBot } from './model';
import { CHAT_ERROR, LEAD_MODAL_DELAY_MS, createTestChat, leadFromForm, shouldOfferLead } from './testChat';

describe('customize store', () => {
  it('uses the spec defaults for every missing field', () => {
    const s = settingsFromBot({ _id: 'b1', name: 'Helper' });
    expect(s).toEqual({ ...DEFAULTS, botName: 'Helper' });
    expect(s.customPrimaryColor).toBe('#3B82F6');
    expect(s.customSecondaryColor).toBe('#1c1d1d');
    expect(s.customBgColor).toBe('#f0f9ff');
    expect(s.selectedFontSize).toBe('16px');
    expect(s.systemPrompt).toBe('You are a helpful assistant for customer support');
    expect(s.welcomeMessage).toBe('Hello, how can I help you today?');
    expect(s.headerTitle).toBe('Chat Support');
    expect(s.headerSubtitle).toBe("We're here to help");
    expect(s.placeholder).toBe('Type your message...');
    expect([s.borderRadius, s.shadowIntensity, s.typingDelay, s.messageHistoryLimit, s.maxMessageLength]).toEqual([
      12,
      'medium',
      1500,
      100,
      500,
    ]);
    // Boolean flags default to true only when absent.
    expect(s.enableLeadCapture).toBe(true);
    expect(settingsFromBot({ enableLeadCapture: false, showBranding: false }).enableLeadCapture).toBe(false);
  });

  it('copies a bot’s fields into the editor', () => {
    const s = settingsFromBot({
      name: 'Shop',
      primaryColour: '#111111',
      isCustomColorMode: true,
      typography: '18px',
      businessHours: 'Mon-Fri 9-17',
      autoOpenDelay: 30,
      customQuestions: ['A?', ' ', 'B?'],
      chatSize: 'nonsense',
    });
    expect(s.customPrimaryColor).toBe('#111111');
    expect(s.isCustomColorMode).toBe(true);
    expect(s.selectedFontSize).toBe('18px');
    expect([s.businessHours, s.autoOpenDelay, s.popupMessage]).toEqual(['Mon-Fri 9-17', 30, DEFAULTS.popupMessage]);
    expect(s.customQuestions).toEqual(['A?', 'B?']);
    expect(s.chatSize).toBe('medium');
  });

  it('reset restores the reset defaults and keeps the texts', () => {
    loadFromBot({ _id: 'b1', name: 'Shop', welcomeMessage: 'Hey', selectedPalette: 3, isCustomColorMode: true, primaryColour: '#000000', typography: '20px', chatSize: 'large', animationStyle: 'fade', borderRadius: 20, shadowIntensity: 'heavy' });
    resetCustomization();
    expect(customize.settings).toMatchObject(RESET_DEFAULTS);
    expect(customize.settings.welcomeMessage).toBe('Hey');
    expect(customize.settings.botName).toBe('Shop');
  });

  it('drops blank quick questions and keeps at most 5', () => {
    expect(cleanQuestions([' a ', '', 'b', '  ', 'c', 'd', 'e', 'f'])).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('builds the save payload in the server’s field names', () => {
    const s = { ...DEFAULTS, botName: ' Shop ', selectedPalette: 2, customQuestions: ['', 'Q1', ' '], businessHours: ' 9-5 ', selectedFontSize: '14px' };
    const p = savePayload(s);
    expect(p).toMatchObject({
      name: 'Shop',
      selectedPalette: 2,
      isCustomColorMode: false,
      primaryColour: PALETTES[2]!.primary,
      backgroundColour: PALETTES[2]!.background,
      typography: '14px',
      businessHours: '9-5',
      autoOpenDelay: 0,
      handoverMessage: DEFAULTS.handoverMessage,
      responseTime: '< 2 minutes',
      customQuestions: ['Q1'],
      enableFAQ: true,
      customCSS: '',
      systemPrompt: 'You are a helpful assistant for customer support',
    });
    expect(p).not.toHaveProperty('botName');
    expect(p).not.toHaveProperty('userIcon'); // no field in the editor: the stored one stays
    const custom = savePayload({ ...s, isCustomColorMode: true, customPrimaryColor: '#123456', botName: '  ' });
    expect(custom.primaryColour).toBe('#123456');
    expect(custom).not.toHaveProperty('name'); // a blank name keeps the stored one
  });

  it('saves to the bot, reports the server’s reason on failure', async () => {
    bots.bots = [bot('b1', 'Old') as never];
    loadFromBot({ _id: 'b1', name: 'Old' });
    setSetting('welcomeMessage', 'New hello');
    const calls = mockFetch({
      'PUT /api/bots/b1': (c) => ({ body: { bot: bot('b1', 'Old', { ...(c.body as object) }) } }),
    });
    await expect(saveCustomization()).resolves.toEqual({ ok: true });
    expect((calls[0]!.body as Record<string, unknown>).welcomeMessage).toBe('New hello');
    expect(bots.bots[0]!.welcomeMessage).toBe('New hello');
    mockFetch({ 'PUT /api/bots/b1': { status: 400, body: { error: { code: 'validation', message: 'Border radius must be 0-24 px in steps of 2' } } } });
    await expect(saveCustomization()).resolves.toEqual({ ok: false, reason: 'Border radius must be 0-24 px in steps of 2' });
  });
});

describe('test chat and the lead rule', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('offers the lead form only with capture on, no lead data, more than 4 messages', () => {
    expect(shouldOfferLead({ enableLeadCapture: true, leadGiven: false, messageCount: 5 })).toBe(true);
    expect(shouldOfferLead({ enableLeadCapture: true, leadGiven: false, messageCount: 4 })).toBe(false);
    expect(shouldOfferLead({ enableLeadCapture: false, leadGiven: false, messageCount: 9 })).toBe(false);
    expect(shouldOfferLead({ enableLeadCapture: true, leadGiven: true, messageCount: 9 })).toBe(false);
    expect(leadFromForm({ company: 'Acme', name: ' ' })).toBeNull();
    expect(leadFromForm({ email: ' a@b.c ', company: '' })).toEqual({ email: 'a@b.c' });
  });

  it('talks to the bot with its visitor token, opens the lead modal 2 s after the second reply, and sends the lead once', async () => {
    let n = 0;
    const calls = mockFetch({
      'POST /api/chat': () => ({ body: { sessionId: 's1', visitorToken: `vt${++n}`, aiResponse: `reply ${n}` } }),
    });
    const chat = createTestChat();
    chat.actions.reset('b1');
    expect(await chat.actions.send('   ', { enableLeadCapture: true })).toBe(false);
    await chat.actions.send('hello', { enableLeadCapture: true });
    expect(calls[0]!.body).toEqual({ message: 'hello', botId: 'b1' });
    await vi.advanceTimersByTimeAsync(LEAD_MODAL_DELAY_MS + 10);
    expect(chat.state.leadModalOpen).toBe(false); // welcome + 2 messages
    await chat.actions.send('more', { enableLeadCapture: true });
    expect(calls[1]!.body).toEqual({ message: 'more', botId: 'b1', sessionId: 's1', visitorToken: 'vt1' });
    await vi.advanceTimersByTimeAsync(LEAD_MODAL_DELAY_MS - 100);
    expect(chat.state.leadModalOpen).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(chat.state.leadModalOpen).toBe(true);

    chat.actions.submitLead({ name: '', email: '', phone: '', company: 'Acme' });
    expect(chat.state.leadModalOpen).toBe(false);
    expect(chat.state.lead).toBeNull(); // nothing of email/name/phone: just closed

    // Saved at once, as the conversation's visitor: an owner who stops here still has the lead.
    sockets.length = 0;
    await chat.actions.submitLead({ name: 'Ada', email: 'ada@x.example' });
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.opts).toMatchObject({ auth: { visitorToken: 'vt2' }, forceNew: true });
    expect(sockets[0]!.emitted).toEqual([['leave-details', { sessionId: 's1', leadData: { name: 'Ada', email: 'ada@x.example' } }]]);
    expect(sockets[0]!.closed).toBe(true);
    await chat.actions.send('third', { enableLeadCapture: true });
    expect(calls[2]!.body).not.toHaveProperty('leadData');
    await vi.advanceTimersByTimeAsync(LEAD_MODAL_DELAY_MS + 10);
    expect(chat.state.leadModalOpen).toBe(false); // lead given: no more
  });

  it('a lead whose save fails goes with the next message instead', async () => {
    const calls = mockFetch({ 'POST /api/chat': { body: { sessionId: 's1', visitorToken: 'vt1', aiResponse: 'ok' } } });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    detailsAck = async () => ({ success: false, error: 'Server busy' });
    try {
      const chat = createTestChat();
      chat.actions.reset('b1');
      await chat.actions.send('hello', { enableLeadCapture: true });
      await chat.actions.submitLead({ email: 'ada@x.example' });
      expect(warn).toHaveBeenCalled();
      await chat.actions.send('more', { enableLeadCapture: true });
      expect((calls[1]!.body as Record<string, unknown>).leadData).toEqual({ email: 'ada@x.example' });
      await chat.actions.send('again', { enableLeadCapture: true });
      expect(calls[2]!.body).not.toHaveProperty('leadData');
    } finally {
      detailsAck = async () => ({ success: true });
      warn.mockRestore();
    }
  });

  it('a lead given before any conversation goes with the first message', async () => {
    const calls = mockFetch({ 'POST /api/chat': { body: { sessionId: 's1', visitorToken: 'vt1', aiResponse: 'ok' } } });
    sockets.length = 0;
    const chat = createTestChat();
    chat.actions.reset('b1');
    await chat.actions.submitLead({ name: 'Ada' });
    expect(sockets).toHaveLength(0);
    await chat.actions.send('hello', { enableLeadCapture: true });
    expect((calls[0]!.body as Record<string, unknown>).leadData).toEqual({ name: 'Ada' });
  });

  it('shows the error bubble on failure and refuses to send while pending', async () => {
    let release: () => void = () => {};
    mockFetch({
      'POST /api/chat': () =>
        new Promise<never>((_, reject) => {
          release = () => reject(new TypeError('network'));
        }),
    });
    const chat = createTestChat();
    chat.actions.reset('b1');
    const first = chat.actions.send('hi', { enableLeadCapture: false });
    await vi.advanceTimersByTimeAsync(0);
    expect(chat.state.pending).toBe(true);
    expect(await chat.actions.send('again', { enableLeadCapture: false })).toBe(false);
    release();
    await first;
    expect(chat.state.pending).toBe(false);
    expect(chat.state.messages.at(-1)).toMatchObject({ role: 'bot', content: CHAT_ERROR, isError: true });
  });
});
