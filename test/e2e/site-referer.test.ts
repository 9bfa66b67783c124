/**
 * The page an Inquiry from the website keeps (`page_url`, from `Referer`), on the real HTTP server:
 * only an http(s) URL on an origin the publishable key allows is kept; anything else (a
 * `javascript:` or `data:` URL, another site, plain http where the key allows https, user
 * information in the URL, not a URL at all) leaves the Inquiry without a page. The Inquiry itself is
 * taken in either way (201): a visitor's browser, not the visitor, chooses the Referer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const PAGE = 'https://www.referer.example';
let api: TestApi;
let siteKey: string;

beforeAll(async () => {
  // Thirteen Inquiries from one visitor within a minute: more than the default inquiry budget.
  vi.stubEnv('SITE_RATE_LIMIT_INQUIRY_PER_MINUTE', '100');
  resetConfig();
  const tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  siteKey = (
    await issueSiteKey({
      tenantId: tenant.tenantId,
      origins: `${PAGE},https://*.referer.example,http://localhost`,
    })
  ).key;
});
afterAll(async () => {
  await api?.close();
  vi.unstubAllEnvs();
  resetConfig();
});

let n = 0;
/** Sends an Inquiry from the page's form with `referer`; answers the stored Inquiry's page_url. */
async function pageKept(referer: string): Promise<unknown> {
  n++;
  const res = await api.call('POST', `/v1/site/leads?${new URLSearchParams({ key: siteKey })}`, {
    key: null,
    body: {
      name: `Visitor ${n}`,
      email: `referer-visitor-${n}-${Date.now()}@example.com`,
      message: 'Is it still available?',
      turnstile: TURNSTILE_DUMMY_TOKEN,
    },
    headers: { origin: PAGE, referer },
  });
  expect(res.status, `${referer}: ${res.text}`).toBe(201);
  const inquiry = await api.call('GET', `/v1/inquiries/${res.body.id}`);
  expect(inquiry.status, inquiry.text).toBe(200);
  return inquiry.body.page_url;
}

describe("an Inquiry's page (Referer)", () => {
  it.each([
    ['a javascript: URL', 'javascript:alert(document.cookie)//'],
    ['a javascript: URL in capitals', 'JavaScript:alert(1)//https://www.referer.example/'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['another site', 'https://evil.example/phish'],
    ['a look-alike host', 'https://www.referer.example.evil.example/'],
    ['plain http on an https-only origin', 'http://www.referer.example/homes'],
    ['user information in the URL', 'https://user:secret@www.referer.example/homes'],
    ['another port', 'https://www.referer.example:8443/homes'],
    ['not a URL', 'somewhere on the site'],
  ])('%s is not kept: no page', async (_name, referer) => {
    expect(await pageKept(referer)).toBeNull();
  });

  it.each([
    [
      'a page of the allowed origin',
      `${PAGE}/homes/sea-view?utm_source=news`,
      `${PAGE}/homes/sea-view?utm_source=news`,
    ],
    [
      'a subdomain of a wildcard origin',
      'https://shop.referer.example/p/1',
      'https://shop.referer.example/p/1',
    ],
    ['a local page on http://localhost', 'http://localhost:3000/contact', 'http://localhost:3000/contact'],
    ['a fragment, dropped', `${PAGE}/homes#gallery`, `${PAGE}/homes`],
  ])('%s is kept', async (_name, referer, kept) => {
    expect(await pageKept(referer)).toBe(kept);
  });
});
