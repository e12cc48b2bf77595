import { describe, expect, it } from 'vitest';
import { checkWebsiteUrl, URL_REQUIRED, urlInvalid } from './website-url';
import { rememberWebsite, takeWebsite, wizardPath } from './pending-website';

describe('landing website box', () => {
  it('requires a URL', () => {
    expect(checkWebsiteUrl('')).toEqual({ ok: false, error: URL_REQUIRED });
    expect(checkWebsiteUrl('   ')).toEqual({ ok: false, error: 'Please enter a website URL' });
  });

  it('takes full URLs and bare domains', () => {
    expect(checkWebsiteUrl('https://shop.example.com/help')).toEqual({ ok: true, url: 'https://shop.example.com/help' });
    expect(checkWebsiteUrl(' acme.com ')).toEqual({ ok: true, url: 'https://acme.com/' });
    expect(checkWebsiteUrl('http://127.0.0.1:4000')).toEqual({ ok: true, url: 'http://127.0.0.1:4000/' });
  });

  it('refuses what does not parse as a site, in the spec words', () => {
    for (const bad of ['not a url', 'acme', 'ftp://acme.com', 'https://', 'http://exa mple.com']) {
      expect(checkWebsiteUrl(bad), bad).toEqual({ ok: false, error: urlInvalid() });
    }
    expect(urlInvalid()).toBe('Please enter a valid URL (e.g., https://example.com)');
  });

  it('carries the website once through sign-up', () => {
    rememberWebsite('https://acme.com/');
    expect(takeWebsite()).toBe('https://acme.com/');
    expect(takeWebsite()).toBeNull();
    expect(wizardPath('https://acme.com/?a=1')).toBe('/dashboard?create=1&website=https%3A%2F%2Facme.com%2F%3Fa%3D1');
  });
});
