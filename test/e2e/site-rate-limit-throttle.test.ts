/**
 * The site (publishable-key) budgets' counters under a flood, on the real HTTP
 * server:
 * - a window item refused for capacity, as DynamoDB answers once the SDK's own retries are spent,
 *   answers 429 with Retry-After, never 500 (injected before the SDK's retry step, so every other
 *   call of the request runs for real on DynamoDB Local);
 * - once a visitor's budget is spent, the rest of its window is refused without another write on
 *   the window items.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { earlyInMinute } from '../support/eventually.ts';
import { createSiteTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const PAGE = 'https://www.flood.example';
const NAME = 'siteWindowItems';
let api: TestApi;
/** Tenants whose site window items answer as throttled. */
const throttledTenants = new Set<string>();
/** Writes that reached a site window item, by Tenant. */
const windowWrites = new Map<string, number>();

const windowKeyOf = (args: unknown) => {
  const pk = (args as { input?: { Key?: { pk?: unknown } } }).input?.Key?.pk;
  return typeof pk === 'string' && pk.includes('#site-rate#') ? pk : undefined;
};

beforeAll(async () => {
  vi.stubEnv('SITE_RATE_LIMIT_IP_PER_MINUTE', '3');
  resetConfig();
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const pk = windowKeyOf(args);
      const tenantId = pk?.split('#')[1];
      if (tenantId) {
        windowWrites.set(tenantId, (windowWrites.get(tenantId) ?? 0) + 1);
        if (throttledTenants.has(tenantId)) {
          throw Object.assign(
            new Error('The level of configured provisioned throughput for the table was exceeded'),
            { name: 'ProvisionedThroughputExceededException' },
          );
        }
      }
      return next(args);
    },
    { step: 'initialize', name: NAME },
  );
  api = await startTestApi();
});
afterAll(async () => {
  dynamo().middlewareStack.remove(NAME);
  await api?.close();
  vi.unstubAllEnvs();
  resetConfig();
});

// Each test early in a one-minute window, so that its requests all fall in one window.
beforeEach(earlyInMinute);

describe('a throttled site rate-limit counter', () => {
  it('answers a site read 429 with Retry-After, not 500', async () => {
    // Prepare
    const { tenant, path } = await createSiteTenant(PAGE);
    throttledTenants.add(tenant.tenantId);
    // Act
    const res = await api.call('GET', path('/v1/site/amenities'), { key: null });
    // Assess
    expect(res.status, res.text).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers an Inquiry 429 with Retry-After, not 500', async () => {
    // Prepare
    const { tenant, path } = await createSiteTenant(PAGE);
    throttledTenants.add(tenant.tenantId);
    // Act
    const res = await api.call('POST', path('/v1/site/leads'), {
      key: null,
      body: { name: 'Flood', email: 'flood@example.com', message: 'Hi', turnstile: TURNSTILE_DUMMY_TOKEN },
    });
    // Assess
    expect(res.status, res.text).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('a spent site budget', () => {
  it('refuses the rest of its window without writing to the window items again', async () => {
    // Prepare: the visitor's 3 requests, then the first refused one.
    const { tenant, path } = await createSiteTenant(PAGE);
    const get = (n: number) => api.call('GET', `${path('/v1/site/amenities')}&junk=${n}`, { key: null });
    const admitted = [await get(1), await get(2), await get(3)];
    const firstRefused = await get(4);
    const writesWhenSpent = windowWrites.get(tenant.tenantId) ?? 0;
    // Act
    const later = [await get(5), await get(6), await get(7)];
    // Assess
    expect(admitted.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(firstRefused.status).toBe(429);
    expect(later.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(Number(later[2]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(windowWrites.get(tenant.tenantId)).toBe(writesWhenSpent);
  });
});
