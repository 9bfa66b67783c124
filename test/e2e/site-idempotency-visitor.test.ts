import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { resetSiteSecrets } from '../../functions/kernel/site-secrets.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/**
 * A publishable key is shared by every visitor of the website, and its Idempotency-Keys are chosen
 * by pages: one visitor's key must neither block nor replay another visitor's inquiry.
 */
let api: TestApi;
let tenant: TestTenant;
let siteKey: string;
const PAGE = 'https://www.agency.example';
/** The site routes read the viewer's address from CloudFront only when the request came through it. */
const ORIGIN_SECRET = 'origin-secret-of-the-test-distribution';

beforeAll(async () => {
  vi.stubEnv('SITE_ORIGIN_SECRET', ORIGIN_SECRET);
  resetConfig();
  resetSiteSecrets();
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  siteKey = (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;
});
afterAll(async () => {
  await api?.close();
  vi.unstubAllEnvs();
  resetConfig();
  resetSiteSecrets();
});

/** An inquiry as a page sends it, from the viewer address CloudFront reports. */
function inquire(viewer: string, idempotencyKey: string, name: string) {
  const query = new URLSearchParams({ key: siteKey, origin: PAGE });
  return api.call('POST', `/v1/site/leads?${query}`, {
    key: null,
    body: {
      name,
      email: `${unique('visitor')}@example.com`,
      message: 'Is it still free?',
      turnstile: TURNSTILE_DUMMY_TOKEN,
    },
    headers: {
      origin: PAGE,
      'idempotency-key': idempotencyKey,
      'x-origin-verify': ORIGIN_SECRET,
      'cloudfront-viewer-address': `${viewer}:44321`,
    },
  });
}

describe('site Idempotency-Keys are scoped to the visitor', () => {
  it("another visitor's inquiry with the same key is its own request: 201, its own Inquiry", async () => {
    const idempotencyKey = randomUUID();
    const first = await inquire('198.51.100.7', idempotencyKey, 'First Visitor');
    const second = await inquire('203.0.113.9', idempotencyKey, 'Second Visitor');

    expect(first.status, first.text).toBe(201);
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('the same visitor with the same key and another body: 422 at the header', async () => {
    const idempotencyKey = randomUUID();
    const first = await inquire('198.51.100.8', idempotencyKey, 'Same Visitor');
    const other = await inquire('198.51.100.8', idempotencyKey, 'Same Visitor, another body');

    expect(first.status, first.text).toBe(201);
    expect(other.status).toBe(422);
    expect(other.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
  });
});
