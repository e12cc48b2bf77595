// The owner's custom CSS, made ready to apply, the same way in the live chat and in the
// dashboard's test preview (which sits inside the dashboard, beside other members' screens).
// The browser's own parser reads the text in a detached document; only its style rules come back
// out (inside @media and @supports too), each selector put under the chat's scope and each
// declaration made !important so it wins over the chat's own styles in both places alike. What
// is applied is the parser's serialisation, never the owner's text, so nothing can close a rule
// early and reach the page around the chat; @import, @font-face and the like are dropped. The
// server has refused anything loading from elsewhere on save (store/src/custom_css.rs).

/** The attribute on the element around the chat; custom CSS applies inside it only. */
export const CUSTOM_CSS_SCOPE = '[data-parley-chat]';

/** Splits a selector list at its top-level commas (not those in :is(…), […] or strings). */
function selectors(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out.filter(Boolean);
}

interface RuleLike {
  selectorText?: string;
  style?: CSSStyleDeclaration;
  cssRules?: CSSRuleList;
  conditionText?: string;
  media?: MediaList;
}

function declarations(style: CSSStyleDeclaration): string {
  const out: string[] = [];
  for (let i = 0; i < style.length; i++) {
    const name = style[i];
    const value = style.getPropertyValue(name);
    if (name && value) out.push(`${name}: ${value} !important`);
  }
  return out.join('; ');
}

function rewrite(rule: RuleLike, scope: string): string {
  if (typeof rule.selectorText === 'string' && rule.style) {
    const body = declarations(rule.style);
    if (!body) return '';
    return `${selectors(rule.selectorText).map((s) => `${scope} ${s}`).join(', ')} { ${body} }`;
  }
  if (rule.cssRules && (rule.media || typeof rule.conditionText === 'string')) {
    const inner = Array.from(rule.cssRules, (r) => rewrite(r as RuleLike, scope)).filter(Boolean).join('\n');
    if (!inner) return '';
    const condition = rule.media ? `@media ${rule.media.mediaText}` : `@supports ${rule.conditionText}`;
    return `${condition} { ${inner} }`;
  }
  return '';
}

/** The rules as the browser parses them; @import is never fetched (replaceSync ignores it). */
function parse(css: string): CSSRule[] {
  try {
    const sheet = new CSSStyleSheet();
    if (typeof sheet.replaceSync === 'function') {
      sheet.replaceSync(css);
      return Array.from(sheet.cssRules);
    }
  } catch {
    // Not constructable here: the fallback below.
  }
  // jsdom and older browsers: a style element that applies to nothing, removed at once.
  const style = document.createElement('style');
  style.media = 'not all';
  style.textContent = css;
  document.head.appendChild(style);
  const rules = style.sheet ? Array.from(style.sheet.cssRules) : [];
  style.remove();
  return rules;
}

/** The CSS to put in a `<style>`: every rule under `scope`, every declaration !important. */
export function scopedCustomCss(css: string, scope: string = CUSTOM_CSS_SCOPE): string {
  if (!css.trim()) return '';
  return parse(css)
    .map((r) => rewrite(r as RuleLike, scope))
    .filter(Boolean)
    .join('\n');
}
