/**
 * The page an Inquiry keeps from its Referer: an http(s) URL on one of the publishable key's
 * origins, else none (the end-to-end cases are in test/e2e/site-referer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { allowedPageUrl, MAX_PAGE_URL_LENGTH } from '../../functions/domain/origins.ts';

const ORIGINS = ['https://www.agency.example', 'https://*.agency.example', 'http://localhost'];

describe('allowedPageUrl', () => {
  it('keeps a page of an allowed origin, normalised, without its fragment', () => {
    expect(allowedPageUrl(ORIGINS, 'https://WWW.Agency.example:443/homes?id=1#top')).toBe(
      'https://www.agency.example/homes?id=1',
    );
    expect(allowedPageUrl(ORIGINS, 'https://a.b.agency.example/')).toBe('https://a.b.agency.example/');
    expect(allowedPageUrl(ORIGINS, 'http://localhost:5173/')).toBe('http://localhost:5173/');
  });

  it('keeps no page for other schemes, other origins, user information or what is not a URL', () => {
    for (const referer of [
      undefined,
      '',
      'javascript:alert(document.cookie)//',
      ' javascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
      'blob:https://www.agency.example/0b6f5a1e',
      'ftp://www.agency.example/file',
      'https://agency.example/',
      'https://www.agency.example.evil.example/',
      'http://www.agency.example/',
      'https://u@www.agency.example/',
      'http://127.0.0.1:3000/',
      '//www.agency.example/homes',
      '/homes',
    ]) {
      expect(allowedPageUrl(ORIGINS, referer), String(referer)).toBeUndefined();
    }
  });

  it(`keeps no page longer than ${MAX_PAGE_URL_LENGTH} characters (rather than a cut one)`, () => {
    const page = 'https://www.agency.example/';
    expect(allowedPageUrl(ORIGINS, page + 'a'.repeat(MAX_PAGE_URL_LENGTH - page.length))).toHaveLength(
      MAX_PAGE_URL_LENGTH,
    );
    expect(allowedPageUrl(ORIGINS, page + 'a'.repeat(MAX_PAGE_URL_LENGTH))).toBeUndefined();
    // Spaces grow to %20 once normalised: judged after.
    expect(allowedPageUrl(ORIGINS, `${page}${' '.repeat(1000)}x`)).toBeUndefined();
  });
});
