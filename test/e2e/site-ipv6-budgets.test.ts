/**
 * IPv6 visitors' site budgets, on the real HTTP server behind a stand-in for the site distribution
 * (the origin secret in `X-Origin-Verify`, the viewer in `CloudFront-Viewer-Address`), with the
 * budgets scaled down through their settings:
 * - a household stepping through the /64s of its /56 (cache-busting queries, each /64 under its own
 *   `ip-minute`) is stopped by its /48's `network-minute`, so it cannot spend the Tenant's
 *   `site-minute`: another visitor is still served;
 * - one /64 past its own budget does not spend its /48's: a neighbour in the same /48 is served;
 * - IPv4 visitors have no network budget: each address counts alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { resetSiteSecrets } from '../../functions/kernel/site-secrets.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const PAGE = 'https://www.ipv6.example';
const ORIGIN_SECRET = 'origin-secret-of-the-test-distribution';
const PER_VISITOR = 3;
const PER_NETWORK = 6;
const PER_SITE = 20;

let api: TestApi;

beforeAll(async () => {
  vi.stubEnv('SITE_ORIGIN_SECRET', ORIGIN_SECRET);
  vi.stubEnv('SITE_RATE_LIMIT_IP_PER_MINUTE', String(PER_VISITOR));
  vi.stubEnv('SITE_RATE_LIMIT_NETWORK_PER_MINUTE', String(PER_NETWORK));
  vi.stubEnv('SITE_RATE_LIMIT_TENANT_PER_MINUTE', String(PER_SITE));
  resetConfig();
  resetSiteSecrets();
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
  vi.unstubAllEnvs();
  resetConfig();
  resetSiteSecrets();
});

/** Starts each test early in a one-minute window (the budgets are per minute). A wait, not an assertion on time. */
beforeEach(async () => {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoWindow));
});

async function siteKey(): Promise<string> {
  const tenant = await createTestTenant();
  return (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;
}

let junk = 0;
/** A site read as CloudFront forwards it from `viewer` (an address), with a cache-busting query. */
function readAs(key: string, viewer: string) {
  const query = new URLSearchParams({ key, origin: PAGE, junk: String(junk++) });
  return api.call('GET', `/v1/site/amenities?${query}`, {
    key: null,
    headers: {
      origin: PAGE,
      'x-origin-verify': ORIGIN_SECRET,
      'cloudfront-viewer-address': `${viewer}:44321`,
    },
  });
}

/** The /64 number `n` of the household's /56 2001:db8:aa:1100::/56, one address in it. */
const householdAddress = (n: number) => `2001:db8:aa:11${n.toString(16).padStart(2, '0')}::7`;

describe('IPv6 visitors: budgets per /64 and per /48 before the site budget', () => {
  it("a household stepping through its /64s spends its network budget, not the Tenant's site budget", async () => {
    // Prepare
    const key = await siteKey();
    // Act: 10 /64s of one /56, each up to its own visitor budget: 30 requests, more than the site's 20.
    const statuses: number[] = [];
    let refusal: Awaited<ReturnType<typeof readAs>> | undefined;
    for (let n = 0; n < 10; n++) {
      for (let i = 0; i < PER_VISITOR; i++) {
        const res = await readAs(key, householdAddress(n));
        statuses.push(res.status);
        if (res.status === 429) refusal = res;
      }
    }
    const otherVisitor = await readAs(key, '198.51.100.7');
    const otherNetwork = await readAs(key, '2001:db8:bb:1::7');
    // Assess
    expect(statuses.filter((s) => s === 200)).toHaveLength(PER_NETWORK);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - PER_NETWORK);
    expect(refusal?.headers.get('ratelimit-policy')).toContain(`network-minute;q=${PER_NETWORK};w=60`);
    expect(refusal?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(otherVisitor.status, otherVisitor.text).toBe(200);
    expect(otherNetwork.status, otherNetwork.text).toBe(200);
  }, 120_000);

  it("one /64 past its own budget leaves its /48's budget to its neighbours", async () => {
    // Prepare
    const key = await siteKey();
    // Act: one /64 sends 12 requests (3 admitted), then a neighbour /64 of the same /48 sends 3.
    const flooding: number[] = [];
    for (let i = 0; i < 12; i++) flooding.push((await readAs(key, '2001:db8:cc:1::1')).status);
    const neighbour: number[] = [];
    for (let i = 0; i < PER_VISITOR; i++) neighbour.push((await readAs(key, '2001:db8:cc:2::1')).status);
    // Assess
    expect(flooding.filter((s) => s === 200)).toHaveLength(PER_VISITOR);
    expect(neighbour).toEqual([200, 200, 200]);
  }, 120_000);

  it('IPv4 visitors count per address, with no network budget', async () => {
    // Prepare
    const key = await siteKey();
    // Act: 4 addresses of one /24, each up to its budget: 12 requests, more than a network's 6.
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof readAs>> | undefined;
    for (let n = 1; n <= 4; n++) {
      for (let i = 0; i < PER_VISITOR; i++) {
        last = await readAs(key, `203.0.113.${n}`);
        statuses.push(last.status);
      }
    }
    const over = await readAs(key, '203.0.113.4');
    // Assess
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(over.status).toBe(429);
    expect(over.headers.get('ratelimit-policy')).not.toContain('network-minute');
  }, 120_000);
});
