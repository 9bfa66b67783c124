/**
 * The website's view count costs at most one write unit a view, as AWS bills it, without losing its
 * meaning (views from one visitor within a minute count once): on the real HTTP server, every
 * DynamoDB call of the request counted, refused conditional writes included (DynamoDB Local reports
 * no consumed capacity for a failed call, and AWS bills one unit for it).
 */
import { request } from 'node:http';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import {
  countListingView,
  forgetSeenViews,
  listingViewCount,
  VIEW_MARKS_PER_SLOT,
} from '../../functions/data/listing-views.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestPlaces, createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const PAGE = 'https://www.views.example';
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Call {
  operation: string;
  refused: boolean;
  units: number;
}

/**
 * Every DynamoDB call `work` makes through the service's client, with the write units AWS bills for
 * it: what DynamoDB reports for a write, one unit for a write its condition refused.
 */
async function billedWrites<T>(
  work: () => Promise<T>,
): Promise<{ result: T; writes: Call[]; units: number }> {
  const calls: Call[] = [];
  const name = `billedWrites${Math.random()}`;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const input = { ...(args.input as object), ReturnConsumedCapacity: 'TOTAL' };
      try {
        const output = await next({ ...args, input });
        const consumed = (output.output as { ConsumedCapacity?: ConsumedCapacity }).ConsumedCapacity;
        calls.push({ operation, refused: false, units: consumed?.CapacityUnits ?? 0 });
        return output;
      } catch (error) {
        const refused = (error as { name?: string }).name === 'ConditionalCheckFailedException';
        calls.push({ operation, refused, units: refused ? 1 : 0 });
        throw error;
      }
    },
    { step: 'initialize', name },
  );
  try {
    const result = await work();
    const writes = calls.filter((c) => WRITES.has(c.operation));
    return { result, writes, units: writes.reduce((sum, c) => sum + Math.max(c.units, 1), 0) };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
}

/** A POST from a visitor of its own: another loopback address. */
function postAs(address: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress: address, headers: { origin: PAGE } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

let api: TestApi;
let tenant: TestTenant;
let key: string;
let placeCode: string;

beforeAll(async () => {
  vi.stubEnv('SITE_RATE_LIMIT_IP_PER_MINUTE', '4');
  resetConfig();
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  placeCode = (await createTestPlaces()).town.code;
  ({ key } = await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE }));
});
afterAll(async () => {
  await api?.close();
  vi.unstubAllEnvs();
  resetConfig();
});

/** Each test early in a one-minute window, so that its views fall in one (a wait, not an assertion). */
beforeEach(async () => {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoWindow));
});

async function liveListing(title: string): Promise<{ id: string; slug: string }> {
  const res = await api.call('POST', '/v1/properties', {
    body: { title, listing_type: 'sale', price: '1', place_code: placeCode },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const viewPath = (slug: string) =>
  `/v1/site/properties/${slug}/view?${new URLSearchParams({ key, origin: PAGE })}`;
const view = (slug: string) => api.call('POST', viewPath(slug), { key: null, headers: { origin: PAGE } });

describe('POST /v1/site/properties/{slug}/view', () => {
  it('costs one write request of one write unit, and counts a visitor once a minute', async () => {
    // Prepare: a warm function (its first site request loads the Tenant's catalogue, once).
    const listing = await liveListing('Viewed villa');
    await afterIndexLag();
    expect((await view('warm-up-no-such-home')).status).toBe(404);

    // Act: a first view, its repeat in the same container, its repeat in a fresh container.
    const first = await billedWrites(() => view(listing.slug));
    const again = await billedWrites(() => view(listing.slug));
    forgetSeenViews();
    const fresh = await billedWrites(() => view(listing.slug));

    // Assess: 204 each; one conditional update for the first, none for the repeat this container
    // remembers, one refused update (one unit billed) in a container that does not remember it.
    expect([first.result.status, again.result.status, fresh.result.status]).toEqual([204, 204, 204]);
    expect(first.writes.map((w) => [w.operation, w.refused])).toEqual([['UpdateItem', false]]);
    expect(first.units).toBe(1);
    expect(again.writes).toEqual([]);
    expect(fresh.writes.map((w) => [w.operation, w.refused])).toEqual([['UpdateItem', true]]);
    expect(fresh.units).toBe(1);
    expect(await listingViewCount(tenant.tenantId, listing.id)).toBe(1);
    // The budgets are read, not spent: the answer still carries them.
    expect(first.result.headers.get('ratelimit-policy')).toMatch(
      /^ip-minute;q=4;w=60, site-minute;q=\d+;w=60$/,
    );
  });

  it('counts another visitor, answers 404 for an unknown slug without a write', async () => {
    // Prepare
    const listing = await liveListing('Twice viewed villa');
    await afterIndexLag();

    // Act
    const mine = await view(listing.slug);
    const other = await postAs('127.0.0.2', `${api.url}${viewPath(listing.slug)}`);
    const unknown = await billedWrites(() => view('no-such-home'));

    // Assess
    expect([mine.status, other]).toEqual([204, 204]);
    expect(await listingViewCount(tenant.tenantId, listing.id)).toBe(2);
    expect(unknown.result.status).toBe(404);
    expect(unknown.writes).toEqual([]);
  });

  it('is refused while the visitor has spent its budget, and then counts nothing', async () => {
    // Prepare: a visitor of its own spends its 4 requests of the minute on uncached reads.
    const listing = await liveListing('Refused view villa');
    await afterIndexLag();
    const address = '127.0.0.3';
    const junk = (i: number) =>
      `${api.url}/v1/site/amenities?${new URLSearchParams({ key, origin: PAGE, junk: String(i) })}`;
    for (let i = 0; i < 4; i++) {
      await new Promise<void>((resolve, reject) =>
        request(junk(i), { localAddress: address, headers: { origin: PAGE } }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
          .on('error', reject)
          .end(),
      );
    }

    await afterIndexLag();

    // Act
    const refused = await billedWrites(() => postAs(address, `${api.url}${viewPath(listing.slug)}`));

    // Assess
    expect(refused.result).toBe(429);
    expect(refused.writes).toEqual([]);
    expect(await listingViewCount(tenant.tenantId, listing.id)).toBe(0);
  });
});

describe('countListingView: the marks live on the counter, which stays one write unit', () => {
  const tenantId = 'view-marks-tenant';
  const windowSeconds = 60;

  it('keeps every write at one unit, a full slot of the minute before included, and starts a full slot afresh', async () => {
    // Prepare
    forgetSeenViews();
    const propertyId = `listing-${Math.random()}`;
    const count = (visitor: string, windowStart: number) =>
      billedWrites(() => countListingView({ tenantId, propertyId, visitor, windowStart, windowSeconds }));

    // Act: a full slot in one window, then a full one in the next (the first still on the item
    // when that window's first view is written, and removed by it), then one visitor more.
    const first: Awaited<ReturnType<typeof count>>[] = [];
    for (let v = 0; v < VIEW_MARKS_PER_SLOT; v++) first.push(await count(`2001:db8::${v}`, 600));
    const second: Awaited<ReturnType<typeof count>>[] = [];
    for (let v = 0; v < VIEW_MARKS_PER_SLOT; v++) second.push(await count(`2001:db8:1::${v}`, 660));
    const overflow = await count('2001:db8:2::1', 660);
    const repeat = await count('2001:db8:2::1', 660);
    // Two minutes on, the same slot as the first minute's: left empty by the minute between.
    const later = await count('2001:db8:3::1', 720);

    // Assess: every view counted, each one update reported at one unit by DynamoDB Local (which
    // bills by the item's size before and after); the one past a full slot takes a second write.
    for (const c of [...first, ...second]) {
      expect(c.result).toBe(true);
      expect(c.writes.map((w) => w.units)).toEqual([1]);
    }
    expect(overflow.result).toBe(true);
    expect(overflow.writes.map((w) => w.refused)).toEqual([true, false]);
    expect(repeat.result).toBe(false);
    expect(later.writes.map((w) => [w.refused, w.units])).toEqual([[false, 1]]);
    expect(await listingViewCount(tenantId, propertyId)).toBe(2 * VIEW_MARKS_PER_SLOT + 2);
  });

  it('counts a visitor again in the next minute, and once within it', async () => {
    // Prepare
    forgetSeenViews();
    const propertyId = `listing-${Math.random()}`;
    const count = (windowStart: number) =>
      countListingView({ tenantId, propertyId, visitor: '203.0.113.7', windowStart, windowSeconds });

    // Act
    const counted = [await count(1200), await count(1200), await count(1260), await count(1320)];
    forgetSeenViews();
    counted.push(await count(1320));

    // Assess
    expect(counted).toEqual([true, false, true, true, false]);
    expect(await listingViewCount(tenantId, propertyId)).toBe(3);
  });
});
