/**
 * Budgets judged in order, shared counters spent only by admitted requests (docs/site-api.md and
 * docs/getting-started.md), on the real HTTP server with the budgets scaled down through their settings:
 * - one visitor past its `ip-minute` budget does not spend the Tenant's `site-minute`: another
 *   visitor (another loopback address) is still served;
 * - one key past its `key-minute` budget does not spend `tenant-minute` for the Tenant's other keys;
 * - an Inquiry without a valid Turnstile token is 403 before its body is validated, and refused
 *   Inquiries do not spend `inquiry-minute`.
 */
import { get, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { earlyInMinute } from '../support/eventually.ts';
import { createSiteTenant, createTestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const PAGE = 'https://www.budgets.example';
/** A GET from another visitor: the same machine, another loopback address (its own `ip-minute` bucket). */
function getAsOtherVisitor(url: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    get(url, { localAddress: '127.0.0.2' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    }).on('error', reject);
  });
}

let api: TestApi;

beforeAll(async () => {
  vi.stubEnv('SITE_RATE_LIMIT_IP_PER_MINUTE', '5');
  vi.stubEnv('SITE_RATE_LIMIT_TENANT_PER_MINUTE', '30');
  vi.stubEnv('SITE_RATE_LIMIT_INQUIRY_PER_MINUTE', '2');
  vi.stubEnv('RATE_LIMIT_KEY_PER_MINUTE', '3');
  resetConfig();
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
  vi.unstubAllEnvs();
  resetConfig();
});

// Each test early in a one-minute window, so that its requests all fall in one window.
beforeEach(earlyInMinute);

describe('site budgets', () => {
  it("a visitor over its ip-minute budget leaves site-minute untouched: another visitor's first request is served", async () => {
    // Prepare
    const { path } = await createSiteTenant(PAGE);
    // Act: 40 requests from one visitor, cache-busting junk in the query (every one reaches the API).
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await api.call('GET', `${path('/v1/site/amenities')}&junk=${i}`, { key: null });
      statuses.push(res.status);
    }
    const other = await getAsOtherVisitor(`${api.url}${path('/v1/site/amenities')}`);
    // Assess
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    expect(other.status).toBe(200);
    // A cacheable answer: no per-visitor budget headers (the edge serves it to every visitor).
    expect(other.headers.ratelimit).toBeUndefined();
  }, 120_000);

  it('POST /v1/site/leads without a valid Turnstile token is 403 even with an invalid body', async () => {
    // Prepare
    const { path } = await createSiteTenant(PAGE);
    // Act
    const noToken = await api.call('POST', path('/v1/site/leads'), {
      key: null,
      body: { email: 'not an email' },
    });
    const badToken = await api.call('POST', path('/v1/site/leads'), {
      key: null,
      body: { email: 'not an email', turnstile: 'forged' },
    });
    const validToken = await api.call('POST', path('/v1/site/leads'), {
      key: null,
      body: { email: 'not an email', turnstile: TURNSTILE_DUMMY_TOKEN },
    });
    // Assess
    expect(noToken.status, noToken.text).toBe(403);
    expect(badToken.status, badToken.text).toBe(403);
    expect(validToken.status, validToken.text).toBe(422);
  });

  it('refused Inquiries (bad token, bad body) do not spend inquiry-minute: the next good ones are taken', async () => {
    // Prepare
    const { path } = await createSiteTenant(PAGE);
    const post = (body: unknown) => api.call('POST', path('/v1/site/leads'), { key: null, body });
    const good = (n: number) => ({
      name: `Visitor ${n}`,
      email: `visitor-${n}-${Date.now()}@example.com`,
      message: 'Hello',
      turnstile: TURNSTILE_DUMMY_TOKEN,
    });
    // Act: within the 5 requests of ip-minute, 2 refused Inquiries, then 2 good ones, then a third.
    const refused = [
      await post({ ...good(0), turnstile: 'forged' }),
      await post({ turnstile: TURNSTILE_DUMMY_TOKEN }),
    ];
    const taken = [await post(good(1)), await post(good(2))];
    const third = await post(good(3));
    // Assess
    expect(refused.map((r) => r.status)).toEqual([403, 422]);
    expect(taken.map((r) => r.status)).toEqual([201, 201]);
    expect(taken[1]?.headers.get('ratelimit')).toMatch(/^inquiry-minute;r=0;t=\d+$/);
    expect(third.status, third.text).toBe(429);
  });
});

describe('budget headers and the edge cache', () => {
  it('a successful site GET (cacheable) carries no per-visitor budget headers; a POST, a no-store error and a 429 do', async () => {
    // Prepare
    const { path } = await createSiteTenant(PAGE);
    const budgetHeaders = (headers: Headers) =>
      [
        'ratelimit',
        'ratelimit-policy',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ].filter((name) => headers.has(name));
    // Act
    const cached = await api.call('GET', path('/v1/site/amenities'), { key: null });
    const missing = await api.call('GET', path('/v1/site/properties/by-slug/no-such-listing'), {
      key: null,
    });
    const posted = await api.call('POST', path('/v1/site/leads'), { key: null, body: {} });
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push(await api.call('GET', `${path('/v1/site/amenities')}&i=${i}`, { key: null }));
    const refused = answers.at(-1);
    // Assess
    expect(cached.status).toBe(200);
    expect(cached.headers.get('cache-control')).toMatch(/s-maxage/);
    expect(budgetHeaders(cached.headers)).toEqual([]);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(budgetHeaders(missing.headers)).toHaveLength(5);
    expect(posted.status).toBe(403);
    expect(budgetHeaders(posted.headers)).toHaveLength(5);
    expect(refused?.status).toBe(429);
    expect(budgetHeaders(refused?.headers as Headers)).toHaveLength(5);
  });
});

describe('secret-key budgets', () => {
  it("a key over its key-minute budget leaves tenant-minute untouched for the Tenant's other keys", async () => {
    // Prepare
    const tenant = await createTestTenant();
    await tenant.update({ rateLimitPerMinute: 10 });
    const noisy = await tenant.newKey(['properties:read']);
    const quiet = await tenant.newKey(['properties:read']);
    // Act
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await api.call('GET', '/v1/places', { key: noisy.key })).status);
    const other = await api.call('GET', '/v1/places', { key: quiet.key });
    // Assess
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect(other.status, other.text).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^key-minute;r=2;t=\d+$/);
  });
});
