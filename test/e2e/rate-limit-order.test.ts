import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dynamo, tableName } from '../../functions/data/client.ts';
import { config, resetConfig } from '../../functions/kernel/config.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/**
 * The order of the rate-limit count (one UpdateItem on the Tenant's window item) and the request's
 * own DynamoDB calls, seen on the service's DynamoDB client. A GET starts its read beside the count;
 * a write starts nothing before the verdict.
 */
interface Observed {
  event: 'count:start' | 'count:end' | 'other:start';
  command: string;
}

let api: TestApi;
let observed: Observed[] = [];
/** When set, the count is held until another call starts (or, failing that, a deadlock breaker). */
let holdCount = false;
/** Releases every count held (a site request counts two buckets, side by side). */
let releaseHeldCounts: (() => void)[] = [];
let countReleasedBy: 'other call' | 'deadlock breaker' | undefined;

const DEADLOCK_BREAKER_MS = 3000;

/** The secret API's window item (`#rate#`) or one of the site's (`#site-rate#`). */
function isCount(input: { Key?: { pk?: unknown } }): boolean {
  return typeof input.Key?.pk === 'string' && /#(site-)?rate#/.test(input.Key.pk);
}

beforeAll(async () => {
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      if (!isCount(args.input as { Key?: { pk?: unknown } })) {
        observed.push({ event: 'other:start', command });
        for (const release of releaseHeldCounts.splice(0)) release();
        return next(args);
      }
      observed.push({ event: 'count:start', command });
      if (holdCount) {
        // Not a timing assertion: the breaker only ends the wait when no other call ever starts
        // (the count running alone, first), which the test then reports as a failure.
        const releasedBy = await new Promise<'other call' | 'deadlock breaker'>((resolve) => {
          const breaker = setTimeout(() => resolve('deadlock breaker'), DEADLOCK_BREAKER_MS);
          releaseHeldCounts.push(() => {
            clearTimeout(breaker);
            resolve('other call');
          });
        });
        // The first count to be released by the breaker marks the request as counted alone.
        if (countReleasedBy !== 'deadlock breaker') countReleasedBy = releasedBy;
      }
      try {
        return await next(args);
      } finally {
        observed.push({ event: 'count:end', command });
      }
    },
    { step: 'initialize', name: 'observeRateLimitOrder' },
  );
  api = await startTestApi();
});
afterAll(async () => {
  dynamo().middlewareStack.remove('observeRateLimitOrder');
  await api.close();
});
beforeEach(() => {
  observed = [];
  holdCount = false;
  releaseHeldCounts = [];
  countReleasedBy = undefined;
});

/**
 * What happened from the count's start on (the key lookup and Tenant read of authentication, which
 * run before it with the key cache off in tests, are left out).
 */
function fromCount(): Observed[] {
  const start = observed.findIndex((o) => o.event === 'count:start');
  expect(start).toBeGreaterThanOrEqual(0);
  return observed.slice(start);
}

/**
 * The request's read (a Query) started while a count held until another call started was still in
 * flight: it released the count, and started before the count ended.
 */
function expectQueryBeforeCountEnded(): void {
  expect(countReleasedBy).toBe('other call');
  const events = fromCount();
  const countEnd = events.findIndex((o) => o.event === 'count:end');
  const readStart = events.findIndex((o) => o.event === 'other:start' && o.command === 'Query');
  expect(readStart).toBeGreaterThanOrEqual(0);
  expect(readStart).toBeLessThan(countEnd);
}

/** Waits until at least `margin` ms remain in the current minute (rate windows are epoch minutes). */
async function awayFromMinuteBoundary(marginMs: number): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}

/** The Tenant's request count in the current window, as stored. */
async function storedTenantCount(tenantId: string): Promise<number> {
  const windowStart = Math.floor(Date.now() / 60_000) * 60;
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: { pk: `t#${tenantId}#rate#${windowStart}`, sk: 'window' },
    }),
  );
  return Number(Item?.tenantCount ?? 0);
}

async function createListing(t: TestTenant): Promise<string> {
  const res = await api.call('POST', '/v1/properties', { key: t.key, body: { title: unique('rl') } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('rate limit beside the read', () => {
  it('starts a GET’s read while its count is still in flight, and answers the read', async () => {
    // Prepare
    const t = await createTestTenant();
    const id = await createListing(t);
    observed = [];
    holdCount = true;
    // Act
    const res = await api.call('GET', `/v1/properties/${id}`, { key: t.key });
    // Assess: the read started before the count finished, so it released the held count
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    // The listing's read (one Query: the listing and its Areas)
    expectQueryBeforeCountEnded();
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('answers 429 to a GET over budget although its read ran, and drops the read result', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ rateLimitPerMinute: 2 });
    await awayFromMinuteBoundary(5_000);
    const id = await createListing(t);
    // Act
    const ok = await api.call('GET', `/v1/properties/${id}`, { key: t.key });
    observed = [];
    const limited = await api.call('GET', `/v1/properties/${id}`, { key: t.key });
    // Assess
    expect(ok.status).toBe(200);
    expect(limited.status).toBe(429);
    expect(limited.body.id).toBeUndefined();
    expect(typeof limited.body.detail).toBe('string');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(
      fromCount()
        .filter((o) => o.event === 'other:start')
        .map((o) => o.command),
    ).toEqual(['Query']);
  });

  it('answers 429, not 404 or 422, to a GET over budget whatever the read would have answered', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ rateLimitPerMinute: 1 });
    await awayFromMinuteBoundary(5_000);
    // Act
    const first = await api.call('GET', '/v1/properties', { key: t.key });
    const missing = await api.call('GET', '/v1/properties/00000000-0000-4000-8000-000000000000', {
      key: t.key,
    });
    const invalid = await api.call('GET', '/v1/properties/not-a-uuid', { key: t.key });
    // Assess
    expect(first.status).toBe(200);
    expect(missing.status).toBe(429);
    expect(invalid.status).toBe(429);
  });

  it('answers 404 (not 429) to a GET within budget whose read finds nothing, with the budget headers', async () => {
    // Prepare
    const t = await createTestTenant();
    // Act
    const res = await api.call('GET', '/v1/properties/00000000-0000-4000-8000-000000000000', { key: t.key });
    // Assess
    expect(res.status).toBe(404);
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit-policy')).toMatch(/tenant-minute/);
  });

  it('counts every admitted GET once; refused ones spend no budget', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ rateLimitPerMinute: 3 });
    await awayFromMinuteBoundary(10_000);
    // Act
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await api.call('GET', '/v1/properties', { key: t.key })).status);
    // Assess
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(await storedTenantCount(t.tenantId)).toBe(3);
  });
});

describe('site budgets beside the read', () => {
  const PAGE = 'https://www.order.example';
  beforeAll(() => {
    vi.stubEnv('SITE_RATE_LIMIT_IP_PER_MINUTE', '4');
    resetConfig();
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });
  const sitePath = (key: string, path: string) => `${path}?${new URLSearchParams({ key, origin: PAGE })}`;

  it('starts a site search’s catalogue read while its site count is still in flight, and answers it', async () => {
    // Prepare
    const t = await createTestTenant();
    const { key } = await issueSiteKey({ tenantId: t.tenantId, origins: PAGE });
    observed = [];
    holdCount = true;
    // Act
    const res = await api.call('GET', sitePath(key, '/v1/site/properties'), { key: null });
    // Assess: a catalogue read started before the counts finished, so it released them
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expectQueryBeforeCountEnded();
  });

  it('answers 429, not 404, to a site read over its ip-minute budget, although the read ran', async () => {
    // Prepare
    const t = await createTestTenant();
    const { key } = await issueSiteKey({ tenantId: t.tenantId, origins: PAGE });
    await awayFromMinuteBoundary(10_000);
    const missing = sitePath(key, '/v1/site/properties/by-id/00000000-0000-4000-8000-000000000000');
    const budget = config().SITE_RATE_LIMIT_IP_PER_MINUTE;
    // Act: one request past the visitor's ip-minute budget (4 here)
    const statuses: number[] = [];
    for (let i = 0; i <= budget; i++) {
      statuses.push((await api.call('GET', `${missing}&n=${i}`, { key: null })).status);
    }
    // Assess
    expect(statuses.slice(0, budget).every((s) => s === 404)).toBe(true);
    expect(budget).toBe(4);
    expect(statuses[budget]).toBe(429);
  });
});

describe('rate limit before a write', () => {
  it('starts no other call of a write before its count has answered', async () => {
    // Prepare
    const t = await createTestTenant();
    observed = [];
    // Act
    const res = await api.call('POST', '/v1/properties', { key: t.key, body: { title: unique('rl') } });
    // Assess
    expect(res.status).toBe(201);
    const events = fromCount();
    const countEnd = events.findIndex((o) => o.event === 'count:end');
    const firstOther = events.findIndex((o) => o.event === 'other:start');
    expect(countEnd).toBeGreaterThanOrEqual(0);
    expect(firstOther).toBeGreaterThan(countEnd);
  });

  it('answers 429 to a write over budget and changes nothing', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ rateLimitPerMinute: 1 });
    await awayFromMinuteBoundary(5_000);
    const title = unique('refused');
    // Act
    await api.call('GET', '/v1/properties', { key: t.key });
    observed = [];
    const refused = await api.call('POST', '/v1/properties', { key: t.key, body: { title } });
    // Assess: nothing but the count reached DynamoDB
    expect(refused.status).toBe(429);
    expect(fromCount().filter((o) => o.event === 'other:start')).toEqual([]);
    await t.update({ rateLimitPerMinute: 100 });
    const list = await api.call('GET', '/v1/properties?limit=200&include_archived=true', { key: t.key });
    expect((list.body.data as { title: string }[]).filter((p) => p.title === title)).toEqual([]);
  });
});
