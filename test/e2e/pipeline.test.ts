import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKeyById } from '../../functions/services/api-keys.ts';
import type { Output } from '../support/api-client.ts';
import { afterIndexLag, eventually } from '../support/eventually.ts';
import { createTestPlaces, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

/** The listing as GET /v1/properties/{id} answers it. */
type Listing = Output<'getProperty'>;

/** Every listing of the key's tenant (archived too), by id. */
async function listingIds(key?: string): Promise<string[]> {
  const res = await api.call('GET', '/v1/properties?limit=200&include_archived=true', key ? { key } : {});
  expect(res.status).toBe(200);
  return (res.body.data as Listing[]).map((p) => p.id).sort();
}

async function listingsTitled(title: string, key?: string): Promise<Listing[]> {
  await afterIndexLag(); // the list is read through an index, after the test's writes
  const res = await api.call('GET', '/v1/properties?limit=200&include_archived=true', key ? { key } : {});
  expect(res.status).toBe(200);
  return (res.body.data as Listing[]).filter((p) => p.title === title);
}

function expectUnauthorized(res: Awaited<ReturnType<TestApi['call']>>) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(typeof res.body.detail).toBe('string');
}

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate when no key is sent', async () => {
    // Act
    const res = await api.call('GET', '/v1/places', { key: null });
    // Assess
    expectUnauthorized(res);
  });

  it('serves the Place catalogue to a valid key', async () => {
    const { town } = await createTestPlaces();
    const res = await api.call('GET', '/v1/places?limit=1000');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { code: string }) => p.code)).toContain(town.code);
  });

  it('answers 401 for an unknown key', async () => {
    // Act
    const res = await api.call('GET', '/v1/properties', {
      key: `svc_live_${randomBytes(32).toString('base64url')}`,
    });
    // Assess
    expectUnauthorized(res);
  });

  it('answers 401 for a key without the svc_live_ prefix, even a real secret with its prefix changed', async () => {
    // Prepare
    const rest = tenant.key.slice('svc_live_'.length);
    // Act
    const results = await Promise.all([
      api.call('GET', '/v1/properties', { key: `svc_test_${rest}` }),
      api.call('GET', '/v1/properties', { key: rest }),
      api.call('GET', '/v1/properties', { key: `svc_pk_${rest}` }),
    ]);
    // Assess
    for (const res of results) expectUnauthorized(res);
  });

  it('answers 401 for a malformed Authorization header', async () => {
    const results = await Promise.all([
      api.call('GET', '/v1/properties', { key: null, headers: { authorization: tenant.key } }),
      api.call('GET', '/v1/properties', { key: null, headers: { authorization: `Basic ${tenant.key}` } }),
      api.call('GET', '/v1/properties', { key: null, headers: { authorization: 'Bearer' } }),
    ]);
    for (const res of results) expectUnauthorized(res);
  });

  it('answers 401 for a revoked key, which worked before', async () => {
    // Prepare
    const { id, key } = await tenant.newKey(['properties:read']);
    expect((await api.call('GET', '/v1/properties', { key })).status).toBe(200);
    // Act
    await revokeApiKeyById(tenant.tenantId, id);
    // The key is read eventually consistently (then cached up to AUTH_CACHE_TTL_SECONDS): the
    // revocation holds once the read follows the write, within a second.
    const res = await eventually(
      () => api.call('GET', '/v1/properties', { key }),
      (r) => r.status === 401,
      { timeoutMs: 3_000 },
    );
    // Assess
    expectUnauthorized(res);
  });

  it('answers 401 for an expired key, 200 for one that expires later', async () => {
    // Prepare
    const expired = await tenant.newKey(['properties:read'], {
      expiresAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const later = await tenant.newKey(['properties:read'], {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    // Act
    const [expiredRes, laterRes] = await Promise.all([
      api.call('GET', '/v1/properties', { key: expired.key }),
      api.call('GET', '/v1/properties', { key: later.key }),
    ]);
    // Assess
    expectUnauthorized(expiredRes);
    expect(laterRes.status).toBe(200);
  });
});

describe('scopes', () => {
  it('answers 403 to a key lacking the route scope', async () => {
    // Prepare
    const leadsOnly = await tenant.newKey(['leads:read']);
    const readOnly = await tenant.newKey(['properties:read']);
    // Act
    const [list, places, write] = await Promise.all([
      api.call('GET', '/v1/properties', { key: leadsOnly.key }),
      api.call('GET', '/v1/places', { key: leadsOnly.key }),
      api.call('POST', '/v1/properties', { key: readOnly.key, body: { title: 'Not allowed' } }),
    ]);
    // Assess
    expect(list.status).toBe(403);
    expect(places.status).toBe(403);
    expect(write.status).toBe(403);
    expect(typeof list.body.detail).toBe('string');
    expect(await listingsTitled('Not allowed')).toEqual([]);
  });

  it('lets a properties:write key read listings (write implies read)', async () => {
    // Prepare
    const writer = await tenant.newKey(['properties:write']);
    const created = await api.call('POST', '/v1/properties', {
      key: writer.key,
      body: { title: unique('writer') },
    });
    expect(created.status).toBe(201);
    // Act
    const [list, one] = await Promise.all([
      api.call('GET', '/v1/properties', { key: writer.key }),
      api.call('GET', `/v1/properties/${created.body.id}`, { key: writer.key }),
    ]);
    // Assess
    expect(list.status).toBe(200);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(created.body.id);
  });
});

describe('tenant state', () => {
  it('answers 402 to writes while the subscription is read-only; reads still work', async () => {
    // Prepare
    const t = await createTestTenant();
    const created = await api.call('POST', '/v1/properties', {
      key: t.key,
      body: { title: 'Before read-only' },
    });
    expect(created.status).toBe(201);
    await t.update({ subscription: 'read_only' });
    // The Tenant is read with the key, eventually consistently (and cached in AWS): the change
    // holds once the read follows it.
    await afterIndexLag();
    // Act
    const post = await api.call('POST', '/v1/properties', {
      key: t.key,
      body: { title: 'During read-only' },
    });
    const patch = await api.call('PATCH', `/v1/properties/${created.body.id}`, {
      key: t.key,
      body: { title: 'Changed' },
    });
    const del = await api.call('DELETE', `/v1/properties/${created.body.id}`, { key: t.key });
    const list = await api.call('GET', '/v1/properties', { key: t.key });
    const one = await api.call('GET', `/v1/properties/${created.body.id}`, { key: t.key });
    // Assess
    expect(post.status).toBe(402);
    expect(patch.status).toBe(402);
    expect(del.status).toBe(402);
    expect(typeof post.body.detail).toBe('string');
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: Listing) => p.title)).toEqual(['Before read-only']);
    expect(one.status).toBe(200);
    expect(one.body.title).toBe('Before read-only');
    expect(one.body.status).not.toBe('archived');
  });

  it('answers 503 to every request while the tenant is suspended', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ suspended: true });
    // Act
    const results = await Promise.all([
      api.call('GET', '/v1/properties', { key: t.key }),
      api.call('GET', '/v1/places', { key: t.key }),
      api.call('GET', `/v1/properties/${randomUUID()}`, { key: t.key }),
      api.call('POST', '/v1/properties', { key: t.key, body: { title: 'Suspended' } }),
    ]);
    // Assess
    expect(results.map((r) => r.status)).toEqual([503, 503, 503, 503]);
    // and it comes back when lifted
    await t.update({ suspended: false });
    expect((await api.call('GET', '/v1/properties', { key: t.key })).body.data).toEqual([]);
  });
});

/** Waits until at least `margin` ms remain in the current minute (rate windows are epoch minutes). */
async function awayFromMinuteBoundary(marginMs: number): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}

describe('rate limits', () => {
  it('answers 429 with Retry-After and RateLimit headers once the tenant budget is spent', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ rateLimitPerMinute: 3 });
    await awayFromMinuteBoundary(5_000);
    // Act
    const ok: Awaited<ReturnType<TestApi['call']>>[] = [];
    for (let i = 0; i < 3; i++) ok.push(await api.call('GET', '/v1/properties', { key: t.key }));
    const limited = await api.call('GET', '/v1/properties', { key: t.key });
    const otherTenant = await api.call('GET', '/v1/properties');
    // Assess: the successful answers carry the budget headers, counting down
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(ok.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0']);
    for (const res of ok) {
      expect(res.headers.get('ratelimit-policy')).toBe('key-minute;q=600;w=60, tenant-minute;q=3;w=60');
      expect(res.headers.get('ratelimit')).toMatch(/^tenant-minute;r=[0-2];t=\d+$/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(ok[0]!.headers.get('ratelimit')).toMatch(/^tenant-minute;r=2;t=\d+$/);
    // the fourth is refused
    expect(limited.status).toBe(429);
    expect(typeof limited.body.detail).toBe('string');
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-policy')).toBe('key-minute;q=600;w=60, tenant-minute;q=3;w=60');
    expect(limited.headers.get('ratelimit')).toMatch(/^tenant-minute;r=0;t=\d+$/);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    // another tenant's budget is its own
    expect(otherTenant.status).toBe(200);
    expect(otherTenant.headers.get('ratelimit-policy')).toBe(
      'key-minute;q=600;w=60, tenant-minute;q=1200;w=60',
    );
  });

  it('counts the budget per tenant, across its keys', async () => {
    // Prepare
    const t = await createTestTenant();
    await t.update({ rateLimitPerMinute: 2 });
    const second = await t.newKey(['properties:read']);
    await awayFromMinuteBoundary(5_000);
    // Act
    const a = await api.call('GET', '/v1/properties', { key: t.key });
    const b = await api.call('GET', '/v1/properties', { key: second.key });
    const c = await api.call('GET', '/v1/properties', { key: second.key });
    // Assess
    expect([a.status, b.status, c.status]).toEqual([200, 200, 429]);
  });
});

describe('idempotency', () => {
  it('replays the first answer for the same key and body, creating one listing', async () => {
    // Prepare
    const title = unique('idem');
    const idempotencyKey = randomUUID();
    const headers = { 'idempotency-key': idempotencyKey };
    // Act
    const first = await api.call('POST', '/v1/properties', { body: { title, price: '100' }, headers });
    const second = await api.call('POST', '/v1/properties', { body: { title, price: '100' }, headers });
    // the same JSON, formatted differently, is the same body
    const third = await api.call('POST', '/v1/properties', {
      rawBody: `{ "price": "100",\n  "title": ${JSON.stringify(title)} }`,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    // Assess
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    for (const replay of [second, third]) {
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
      // per-request headers are fresh, not replayed
      expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(replay.headers.get('ratelimit')).toMatch(/;r=\d+;t=\d+$/);
    }
    expect((await listingsTitled(title)).map((p) => p.id)).toEqual([first.body.id]);
  });

  it('answers 422 naming the Idempotency-Key header when the key is reused with another body', async () => {
    // Prepare
    const title = unique('idem');
    const headers = { 'idempotency-key': randomUUID() };
    const first = await api.call('POST', '/v1/properties', { body: { title }, headers });
    expect(first.status).toBe(201);
    // Act
    const res = await api.call('POST', '/v1/properties', { body: { title: `${title}-other` }, headers });
    // Assess
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
    expect(typeof res.body.detail[0].msg).toBe('string');
    expect(typeof res.body.detail[0].type).toBe('string');
    expect(await listingsTitled(`${title}-other`)).toEqual([]);
  });

  it('scopes keys per API key: another key with the same Idempotency-Key runs its own request', async () => {
    // Prepare
    const other = await tenant.newKey(['properties:write']);
    const idempotencyKey = randomUUID();
    const title = unique('idem');
    // Act
    const a = await api.call('POST', '/v1/properties', {
      body: { title },
      headers: { 'idempotency-key': idempotencyKey },
    });
    const b = await api.call('POST', '/v1/properties', {
      key: other.key,
      body: { title },
      headers: { 'idempotency-key': idempotencyKey },
    });
    // Assess
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('accepts a key of 255 characters and refuses one of 256 with 422', async () => {
    // Prepare
    const title = unique('idem');
    // Act
    const empty = await api.call('POST', '/v1/properties', {
      body: { title },
      headers: { 'idempotency-key': '' },
    });
    const tooLong = await api.call('POST', '/v1/properties', {
      body: { title },
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    const longest = await api.call('POST', '/v1/properties', {
      body: { title },
      headers: { 'idempotency-key': `${randomUUID()}${'k'.repeat(255 - 36)}` },
    });
    // Assess
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(['header', 'Idempotency-Key']);
    expect(longest.status).toBe(201);
    expect((await listingsTitled(title)).map((p) => p.id)).toEqual([longest.body.id]);
  });

  it('lets exactly one of 10 concurrent requests with one key run; the rest are 409 or replays', async () => {
    // Prepare
    const title = unique('race');
    const headers = { 'idempotency-key': randomUUID() };
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api.call('POST', '/v1/properties', { body: { title }, headers })),
    );
    // Assess
    const originals = results.filter(
      (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
    );
    const replays = results.filter((r) => r.headers.get('idempotent-replayed') === 'true');
    const conflicts = results.filter((r) => r.status === 409);
    expect(originals).toHaveLength(1);
    expect(originals.length + replays.length + conflicts.length).toBe(10);
    expect(replays.length + conflicts.length).toBe(9);
    for (const replay of replays) {
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(originals[0]!.text);
    }
    for (const conflict of conflicts) expect(typeof conflict.body.detail).toBe('string');
    expect((await listingsTitled(title)).map((p) => p.id)).toEqual([originals[0]!.body.id]);
    // once done, the key replays
    const after = await api.call('POST', '/v1/properties', { body: { title }, headers });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.text).toBe(originals[0]!.text);
  });
});

describe('validation', () => {
  it('answers 422 at loc ["body"] to malformed JSON, creating nothing', async () => {
    // Prepare
    const before = await listingIds();
    // Act
    const res = await api.call('POST', '/v1/properties', {
      rawBody: '{"title": "Broken",',
      headers: { 'content-type': 'application/json' },
    });
    // Assess
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body']);
    expect(typeof res.body.detail[0].msg).toBe('string');
    expect(typeof res.body.detail[0].type).toBe('string');
    expect(await listingIds()).toEqual(before);
  });

  it('answers 422 to a missing body or a missing title', async () => {
    const before = await listingIds();
    const [none, noTitle] = await Promise.all([
      api.call('POST', '/v1/properties'),
      api.call('POST', '/v1/properties', { body: { price: '1' } }),
    ]);
    expect(none.status).toBe(422);
    expect(none.body.detail[0].loc).toEqual(['body']);
    expect(noTitle.status).toBe(422);
    expect(noTitle.body.detail).toContainEqual({
      loc: ['body', 'title'],
      msg: 'Field required',
      type: 'missing',
    });
    expect(await listingIds()).toEqual(before);
  });

  it.each([
    ['price', 'abc'],
    ['price', '-1'],
    ['price', 100],
    ['price', '1.234'],
    ['price', ''],
    ['rent_price', '-0.01'],
    ['bedrooms', -1],
    ['bedrooms', 1.5],
    ['bedrooms', '2'],
    ['bathrooms', '1.25'],
    ['currency', 'EURO'],
    ['currency', 'E1R'],
    ['title', ''],
    ['title', '   '],
    ['title', 7],
    ['listing_type', 'lease'],
  ])('answers 422 naming body.%s for %j, creating nothing', async (field, value) => {
    // Prepare
    const before = await listingIds();
    const body = { title: 'Valid title', [field]: value };
    // Act
    const [post, patch] = await Promise.all([
      api.call('POST', '/v1/properties', { body }),
      api.call('PATCH', `/v1/properties/${randomUUID()}`, { body: { [field]: value } }),
    ]);
    // Assess
    for (const res of [post, patch]) {
      expect(res.status).toBe(422);
      expect(Array.isArray(res.body.detail)).toBe(true);
      expect(res.body.detail.length).toBeGreaterThan(0);
      for (const item of res.body.detail) {
        expect(Object.keys(item).sort()).toEqual(['loc', 'msg', 'type']);
        expect(typeof item.msg).toBe('string');
        expect(typeof item.type).toBe('string');
      }
      expect(res.body.detail.map((i: { loc: unknown }) => i.loc)).toContainEqual(['body', field]);
    }
    expect(await listingIds()).toEqual(before);
  });

  it('answers 422 promptly to a long non-decimal price (no catastrophic regex backtracking)', async () => {
    // Prepare: leading zeros then a bad character made the decimal pattern backtrack cubically
    const price = `${'0'.repeat(3_000)}x`;
    const started = performance.now();
    // Act
    const res = await api.call('POST', '/v1/properties', { body: { title: unique('redos'), price } });
    // Assess
    const elapsed = performance.now() - started;
    expect(res.status).toBe(422);
    expect(res.body.detail.map((i: { loc: unknown }) => i.loc)).toContainEqual(['body', 'price']);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('answers 413 to a body over 1 MB, creating nothing', async () => {
    // Prepare
    const before = await listingIds();
    const body = JSON.stringify({ title: 'Too big', description: 'x'.repeat(1024 * 1024) });
    // Act
    const res = await api.call('POST', '/v1/properties', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    // Assess
    expect(res.status).toBe(413);
    expect(typeof res.body.detail).toBe('string');
    expect(await listingIds()).toEqual(before);
  });

  it('answers 404 to an unknown route', async () => {
    const [a, b] = await Promise.all([
      api.call('GET', '/v1/nothing-here'),
      api.call('GET', '/v2/properties'),
    ]);
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
  });
});

describe('query validation and cursors', () => {
  it('answers 422 naming the query parameter for a bad limit or updated_since', async () => {
    // Act
    const results = await Promise.all(
      [
        'limit=0',
        'limit=201',
        'limit=abc',
        'limit=1.5',
        'updated_since=2024-01-01T00:00:00',
        'include_archived=maybe',
      ].map((q) => api.call('GET', `/v1/properties?${q}`)),
    );
    // Assess
    const names = ['limit', 'limit', 'limit', 'limit', 'updated_since', 'include_archived'];
    results.forEach((res, i) => {
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(['query', names[i]]);
    });
  });

  it('pages with next_cursor, and refuses an edited cursor or one from another list or tenant', async () => {
    // Prepare
    const a = await createTestTenant();
    const b = await createTestTenant();
    for (const title of ['one', 'two', 'three']) {
      expect((await api.call('POST', '/v1/properties', { key: a.key, body: { title } })).status).toBe(201);
    }
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const first = await api.call('GET', '/v1/properties?limit=2', { key: a.key });
    const cursor: string = first.body.next_cursor;
    expect(first.body.data).toHaveLength(2);
    expect(typeof cursor).toBe('string');
    // Act
    const next = await api.call('GET', `/v1/properties?limit=2&cursor=${encodeURIComponent(cursor)}`, {
      key: a.key,
    });
    const edited = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    const refused = await Promise.all([
      api.call('GET', `/v1/properties?limit=2&cursor=${encodeURIComponent(edited)}`, { key: a.key }),
      api.call('GET', `/v1/properties?limit=2&include_archived=true&cursor=${encodeURIComponent(cursor)}`, {
        key: a.key,
      }),
      api.call('GET', `/v1/properties?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: b.key }),
      api.call('GET', '/v1/properties?limit=2&cursor=garbage', { key: a.key }),
    ]);
    // Assess
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(1);
    expect(next.body.next_cursor).toBeNull();
    const seen = [...first.body.data, ...next.body.data].map((p: Listing) => p.title).sort();
    expect(seen).toEqual(['one', 'three', 'two']);
    for (const res of refused) {
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'cursor']);
    }
  });
});

describe('tenant isolation', () => {
  it("answers 404 (not 403) to tenant B for tenant A's listing and leaves it unchanged", async () => {
    // Prepare
    const b = await createTestTenant();
    const created = await api.call('POST', '/v1/properties', { body: { title: unique('mine'), price: '5' } });
    expect(created.status).toBe(201);
    const path = `/v1/properties/${created.body.id}`;
    // Act
    const get = await api.call('GET', path, { key: b.key });
    const patch = await api.call('PATCH', path, { key: b.key, body: { title: 'Stolen', price: '1' } });
    const del = await api.call('DELETE', path, { key: b.key });
    const bList = await api.call('GET', '/v1/properties?include_archived=true', { key: b.key });
    // Assess
    expect([get.status, patch.status, del.status]).toEqual([404, 404, 404]);
    expect(bList.body.data).toEqual([]);
    const mine = await api.call('GET', path);
    expect(mine.status).toBe(200);
    expect(mine.text).toBe(created.text);
  });

  it('answers 422 at path.property_id, not 5xx, for an id that is not a UUID', async () => {
    // Act
    const results = await Promise.all([
      api.call('GET', '/v1/properties/not-a-uuid'),
      api.call('PATCH', '/v1/properties/not-a-uuid', { body: { title: 'x' } }),
      api.call('DELETE', '/v1/properties/123'),
      api.call('GET', `/v1/properties/${encodeURIComponent("' OR 1=1 --")}`),
    ]);
    // Assess
    for (const res of results) {
      expect(res.status).toBe(422);
      expect(res.body.detail.map((i: { loc: unknown }) => i.loc)).toContainEqual(['path', 'property_id']);
    }
  });

  it('answers 404 to an unknown UUID in this tenant', async () => {
    const res = await api.call('GET', `/v1/properties/${randomUUID()}`);
    expect(res.status).toBe(404);
    expect(typeof res.body.detail).toBe('string');
  });
});

describe('decimals', () => {
  it('normalises prices and returns them as strings', async () => {
    // Act
    const created = await api.call('POST', '/v1/properties', {
      body: { title: unique('dec'), price: '+0100.50', rent_price: '.5', bathrooms: '002.0' },
    });
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.price).toBe('100.50');
    expect(created.body.rent_price).toBe('0.5');
    expect(created.body.bathrooms).toBe('2.0');
    const read = await api.call('GET', `/v1/properties/${created.body.id}`);
    expect(read.body.price).toBe('100.50');
    expect(typeof read.body.price).toBe('string');
    expect(read.text).toContain('"price":"100.50"');
    // the widest price is kept digit for digit; one digit more is refused
    const widest = await api.call('PATCH', `/v1/properties/${created.body.id}`, {
      body: { price: '9999999999999.99' },
    });
    expect(widest.status).toBe(200);
    expect(widest.body.price).toBe('9999999999999.99');
    const wider = await api.call('PATCH', `/v1/properties/${created.body.id}`, {
      body: { price: '10000000000000' },
    });
    expect(wider.status).toBe(422);
    expect((await api.call('GET', `/v1/properties/${created.body.id}`)).body.price).toBe('9999999999999.99');
  });

  it("accepts the pattern's edge forms: bare fraction, trailing point, minus zero, only zeros", async () => {
    // Act
    const results = await Promise.all(
      ['.5', '5.', '-0', '0000'].map((price) =>
        api.call('POST', '/v1/properties', { body: { title: unique('edge'), price } }),
      ),
    );
    // Assess
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(results.map((r) => r.body.price)).toEqual(['0.5', '5', '0', '0']);
  });
});
