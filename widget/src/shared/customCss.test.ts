import { describe, expect, it } from 'vitest';
import { scopedCustomCss } from './customCss';

describe('custom CSS for the chat', () => {
  it('puts every rule under the chat and makes it win over the chat\'s own styles', () => {
    const out = scopedCustomCss('.parley-header, .parley-footer { letter-spacing: 3px } @media (max-width: 400px) { .parley-chat { color: red } }');
    expect(out).toContain('[data-parley-chat] .parley-header, [data-parley-chat] .parley-footer { letter-spacing: 3px !important }');
    expect(out).toMatch(/@media \(max-width: 400px\) \{ \[data-parley-chat\] \.parley-chat \{ color: red !important \} \}/);
  });

  it('cannot be closed early to reach the page around the chat', () => {
    // (jsdom's parser gives up on the stray brace; a browser drops `} body` as a bad selector.)
    for (const css of ['.a { color: red } } body { display: none } .b { color: blue }', '.a { color: red; } body { display: none }']) {
      const out = scopedCustomCss(css);
      for (const rule of out.split('\n').filter(Boolean)) expect(rule.startsWith('[data-parley-chat] ')).toBe(true);
      expect(out).not.toMatch(/(^|\n)body/);
    }
  });

  it('drops imports and at-rules it does not scope, and nothing for blank CSS', () => {
    expect(scopedCustomCss("@import 'https://evil.example/x.css'; @font-face { font-family: x; src: local(x) }")).toBe('');
    expect(scopedCustomCss('   ')).toBe('');
  });
});
