import { describe, expect, it } from 'vitest';
import { chatLook, footer, handoffIntro, headerTitle, lookVars, readableOn, replyWait, suggestedQuestions, waitingText } from './look';

const base = {
  primaryColour: '#3B82F6',
  secondaryColour: '#1c1d1d',
  backgroundColour: '#f0f9ff',
  themeMode: 'light',
  typography: '16px',
  borderRadius: 12,
  shadowIntensity: 'medium',
  animationStyle: 'slide-up',
};

describe('the shared chat look', () => {
  it('maps radius, shadow, animation and colours to CSS variables', () => {
    const vars = lookVars(chatLook({ ...base, borderRadius: 0, shadowIntensity: 'none', animationStyle: 'scale' }));
    expect(vars).toMatchObject({
      '--primary': '#3B82F6',
      '--parley-radius': '0px',
      '--parley-bubble-radius': '4px',
      '--parley-shadow': 'none',
      '--parley-animation': 'parley-scale 0.25s ease-out',
      '--parley-background': '#f0f9ff',
    });
    const dark = chatLook({ ...base, themeMode: 'dark', animationStyle: 'bogus' });
    expect([dark.background, dark.text, dark.animation]).toEqual(['#1a1b1e', '#ffffff', 'parley-slide-up 0.25s ease-out']);
    expect(readableOn('#ffffff')).toBe('#1c1d1d');
  });

  it('suggests quick questions with quick replies on, then FAQ questions with FAQ on, each once', () => {
    const s = { customQuestions: ['Do you ship?', ' '], faqQuestions: ['Do you ship?', 'Returns?', 'a', 'b', 'c', 'd'] };
    expect(suggestedQuestions({ ...s, enableQuickReplies: true, enableFAQ: false })).toEqual(['Do you ship?']);
    expect(suggestedQuestions({ ...s, enableQuickReplies: false, enableFAQ: true })).toEqual(['Do you ship?', 'Returns?', 'a', 'b', 'c']);
    expect(suggestedQuestions({ ...s, enableQuickReplies: true, enableFAQ: true })).toHaveLength(5);
    expect(suggestedQuestions({ ...s, enableQuickReplies: false, enableFAQ: false })).toEqual([]);
  });

  it('titles the header with the custom title, else the bot name', () => {
    expect(headerTitle('Chat Support', 'Helper')).toBe('Helper');
    expect(headerTitle('  ', 'Helper')).toBe('Helper');
    expect(headerTitle('Acme Desk', 'Helper')).toBe('Acme Desk');
  });

  it('puts company, email and branding in the footer', () => {
    expect(footer({ companyName: 'Acme', supportEmail: ' help@acme.example ', showBranding: false })).toEqual({
      company: 'Chat with Acme',
      email: 'help@acme.example',
      branding: false,
    });
    expect(footer({ companyName: '', supportEmail: '', showBranding: true })).toEqual({ company: null, email: null, branding: true });
  });

  it('says when the team is back outside business hours', () => {
    const s = { handoverMessage: 'A person will help.', businessHours: 'Mon-Fri 9-17', responseTime: '5 min' };
    expect(handoffIntro({ ...s, agentsOnline: true })).toBe('A person will help.');
    expect(handoffIntro({ ...s, agentsOnline: false })).toBe("Our team is away right now. We're available Mon-Fri 9-17. Leave your details and we'll get back to you.");
    expect(waitingText({ ...s, agentsOnline: true })).toEqual({ title: 'Connecting you with a human agent...', detail: 'Estimated wait time: 5 min' });
    expect(waitingText({ ...s, businessHours: '', agentsOnline: false }).detail).toBe("We'll reply as soon as we're back.");
  });

  it('holds a quick reply until the typing delay has passed', () => {
    expect(replyWait(1000, 1300, 1500)).toBe(1200);
    expect(replyWait(1000, 3000, 1500)).toBe(0);
  });
});
