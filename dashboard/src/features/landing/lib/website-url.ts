// The hero's website box (spec 2 §5 "Landing hero"): required, and it must parse as a URL. A bare
// domain ("acme.com") is taken as https, as people type it; the wizard and the server check the
// same address again when the bot is created.

export const URL_REQUIRED = 'Please enter a website URL';
export const urlInvalid = (example = 'https://example.com') => `Please enter a valid URL (e.g., ${example})`;

export type WebsiteCheck = { ok: true; url: string } | { ok: false; error: string };

export function checkWebsiteUrl(raw: string): WebsiteCheck {
  const text = raw.trim();
  if (!text) return { ok: false, error: URL_REQUIRED };
  const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { ok: false, error: urlInvalid() };
  }
  // A site to crawl: http(s), a host with a dot (or localhost), no spaces.
  const hostOk = url.hostname === 'localhost' || /^[^\s.]+(\.[^\s.]+)+$/.test(url.hostname);
  if (!['http:', 'https:'].includes(url.protocol) || !hostOk || /\s/.test(text)) {
    return { ok: false, error: urlInvalid() };
  }
  return { ok: true, url: url.toString() };
}
