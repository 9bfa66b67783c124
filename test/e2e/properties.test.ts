import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locs, type Output } from '../support/api-client.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestPlaces, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { allPages, byUpdatedThenId, startTestApi, type TestApi } from '../support/http.ts';

/** The listing as GET /v1/properties/{id} answers it. */
type Listing = Output<'getProperty'>;

let api: TestApi;
let tenant: TestTenant;
let placeCode: string;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  placeCode = (await createTestPlaces()).town.code;
});
afterAll(async () => api.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createListing(body: Record<string, unknown>, key = tenant.key): Promise<Listing> {
  const res = await api.call('POST', '/v1/properties', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body as Listing;
}

describe('POST /v1/properties', () => {
  it('creates a draft that needs a location from a title alone', async () => {
    // Act
    const res = await api.call('POST', '/v1/properties', { body: { title: 'Ático en Málaga centro' } });
    // Assess
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Ático en Málaga centro',
      description: null,
      price: null,
      place_code: null,
      internal_ref: null,
      status: 'draft',
      needs_location: true,
      origin: 'api',
      archived_at: null,
    });
    expect(res.body.slug).toMatch(/^atico-en-malaga-centro(-|$)/);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.created_at).toBe(res.body.updated_at);
    const read = await api.call('GET', `/v1/properties/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('publishes a listing that has a listed place_code', async () => {
    // Act
    const res = await api.call('POST', '/v1/properties', {
      body: {
        title: 'Villa with a view',
        place_code: placeCode,
        price: '+0450000.5',
        currency: 'eur',
        bedrooms: 4,
      },
    });
    // Assess
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'live',
      needs_location: false,
      place_code: placeCode,
      origin: 'api',
      price: '450000.5',
      currency: 'EUR',
      bedrooms: 4,
    });
  });

  it('gives two listings with the same title different slugs, per tenant', async () => {
    // Prepare
    const other = await createTestTenant();
    const title = `Sea View Flat ${unique('s')}`;
    // Act
    const first = await createListing({ title });
    const second = await createListing({ title });
    const elsewhere = await createListing({ title }, other.key);
    // Assess
    expect(first.slug).toBe(title.toLowerCase().replace(/ /g, '-'));
    expect(second.slug).not.toBe(first.slug);
    expect(second.slug.startsWith(`${first.slug}-`)).toBe(true);
    expect(elsewhere.slug).toBe(first.slug);
  });

  it('refuses an unknown place_code with 422 on body.place_code and creates nothing', async () => {
    // Prepare
    const fresh = await createTestTenant();
    // Act
    const res = await api.call('POST', '/v1/properties', {
      key: fresh.key,
      body: { title: 'Nowhere', place_code: 'NO-SUCH-PLACE' },
    });
    // Assess
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['body', 'place_code']]);
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const list = await api.call('GET', '/v1/properties?include_archived=true', { key: fresh.key });
    expect(list.body.data).toEqual([]);
  });

  it('requires a title', async () => {
    // Act
    const missing = await api.call('POST', '/v1/properties', { body: { description: 'no title' } });
    const blank = await api.call('POST', '/v1/properties', { body: { title: '   ' } });
    // Assess
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ['body', 'title'], msg: 'Field required', type: 'missing' }]);
    expect(blank.status).toBe(422);
    expect(locs(blank.body)).toEqual([['body', 'title']]);
  });
});

describe('GET /v1/properties/{property_id}', () => {
  it('answers 404 for an unknown id and for another tenant’s listing', async () => {
    // Prepare
    const other = await createTestTenant();
    const theirs = await createListing({ title: 'Not yours' }, other.key);
    // Act
    const unknown = await api.call('GET', `/v1/properties/${randomUUID()}`);
    const foreign = await api.call('GET', `/v1/properties/${theirs.id}`);
    // Assess
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Not yours');
  });

  it('answers 422 on path.property_id for an id that is not a UUID', async () => {
    const res = await api.call('GET', '/v1/properties/not-a-uuid');
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['path', 'property_id']]);
  });
});

describe('PATCH /v1/properties/{property_id}', () => {
  it('changes present fields, leaves omitted ones and clears nulls', async () => {
    // Prepare
    const created = await createListing({
      title: 'Townhouse',
      description: 'Three floors',
      price: '300000',
      currency: 'EUR',
      bedrooms: 3,
      place_code: placeCode,
    });
    await sleep(5);
    // Act
    const priced = await api.call('PATCH', `/v1/properties/${created.id}`, { body: { price: '310000.50' } });
    // Assess
    expect(priced.status).toBe(200);
    expect(priced.body).toMatchObject({
      title: 'Townhouse',
      description: 'Three floors',
      price: '310000.50',
      currency: 'EUR',
      bedrooms: 3,
      place_code: placeCode,
      status: 'live',
      slug: created.slug,
      created_at: created.created_at,
    });
    expect(priced.body.updated_at > created.updated_at).toBe(true);

    // Act
    const cleared = await api.call('PATCH', `/v1/properties/${created.id}`, { body: { description: null } });
    // Assess
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      description: null,
      price: '310000.50',
      bedrooms: 3,
      status: 'live',
    });
    expect(cleared.body.updated_at > priced.body.updated_at).toBe(true);

    // Act
    const unplaced = await api.call('PATCH', `/v1/properties/${created.id}`, { body: { place_code: null } });
    // Assess
    expect(unplaced.status).toBe(200);
    expect(unplaced.body).toMatchObject({
      place_code: null,
      status: 'draft',
      needs_location: true,
      price: '310000.50',
    });
    const read = await api.call('GET', `/v1/properties/${created.id}`);
    expect(read.body).toEqual(unplaced.body);
  });

  it('refuses title: null with 422 and leaves the listing unchanged', async () => {
    // Prepare
    const created = await createListing({ title: 'Keep my title', description: 'kept' });
    // Act
    const res = await api.call('PATCH', `/v1/properties/${created.id}`, {
      body: { title: null, description: null },
    });
    // Assess
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['body', 'title']]);
    const read = await api.call('GET', `/v1/properties/${created.id}`);
    expect(read.body).toEqual(created);
  });

  it('refuses an unknown place_code and answers 404 for an unknown id', async () => {
    // Prepare
    const created = await createListing({ title: 'Placed later' });
    // Act
    const badPlace = await api.call('PATCH', `/v1/properties/${created.id}`, {
      body: { place_code: 'NOPE-1' },
    });
    const unknown = await api.call('PATCH', `/v1/properties/${randomUUID()}`, { body: { description: 'x' } });
    // Assess
    expect(badPlace.status).toBe(422);
    expect(locs(badPlace.body)).toEqual([['body', 'place_code']]);
    expect(unknown.status).toBe(404);
    expect((await api.call('GET', `/v1/properties/${created.id}`)).body).toEqual(created);
  });
});

describe('DELETE /v1/properties/{property_id}', () => {
  it('archives: 204, slug kept, out of the default list, shown with include_archived, idempotent', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const kept = await createListing({ title: 'Stays listed' }, fresh.key);
    const gone = await createListing({ title: 'Sold flat', place_code: placeCode }, fresh.key);
    // Act
    const res = await api.call('DELETE', `/v1/properties/${gone.id}`, { key: fresh.key });
    // Assess
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await api.call('GET', `/v1/properties/${gone.id}`, { key: fresh.key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: 'archived', slug: gone.slug, place_code: placeCode });
    expect(read.body.archived_at).toEqual(expect.any(String));
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const defaultList = await api.call('GET', '/v1/properties', { key: fresh.key });
    expect(defaultList.body.data.map((p: Listing) => p.id)).toEqual([kept.id]);
    const withArchived = await api.call('GET', '/v1/properties?include_archived=true', { key: fresh.key });
    expect(withArchived.body.data.map((p: Listing) => p.id)).toEqual([kept.id, gone.id]);

    // Act
    const again = await api.call('DELETE', `/v1/properties/${gone.id}`, { key: fresh.key });
    // Assess
    expect(again.status).toBe(204);
    const reread = await api.call('GET', `/v1/properties/${gone.id}`, { key: fresh.key });
    expect(reread.body).toEqual(read.body);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await api.call('DELETE', `/v1/properties/${randomUUID()}`);
    expect(res.status).toBe(404);
  });
});

describe('GET /v1/properties paging', () => {
  it('serves every listing exactly once in (updated_at, id) order across pages', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const created: Listing[] = [];
    for (let i = 0; i < 7; i++) created.push(await createListing({ title: `Paged ${i}` }, fresh.key));
    // Act
    const pages = await allPages<Listing>(api, '/v1/properties?limit=3', fresh.key);
    // Assess
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((p) => p.id)).toEqual([...created].sort(byUpdatedThenId).map((p) => p.id));
  });

  it('ends with next_cursor null when the last page is exactly full', async () => {
    // Prepare
    const fresh = await createTestTenant();
    for (let i = 0; i < 4; i++) await createListing({ title: `Even ${i}` }, fresh.key);
    // Act
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const first = await api.call('GET', '/v1/properties?limit=2', { key: fresh.key });
    const second = await api.call(
      'GET',
      `/v1/properties?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      {
        key: fresh.key,
      },
    );
    // Assess
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect(second.body.data).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
  });

  it('does not cut the default list short when archived listings come first', async () => {
    // Prepare: archived listings are the least recently updated, so they sit at the start of the order
    const fresh = await createTestTenant();
    for (let i = 0; i < 4; i++) {
      const archived = await createListing({ title: `Archived ${i}` }, fresh.key);
      expect((await api.call('DELETE', `/v1/properties/${archived.id}`, { key: fresh.key })).status).toBe(
        204,
      );
    }
    const live: Listing[] = [];
    for (let i = 0; i < 5; i++) live.push(await createListing({ title: `Live ${i}` }, fresh.key));
    // Act
    const pages = await allPages<Listing>(api, '/v1/properties?limit=3', fresh.key);
    // Assess
    expect(pages.flat().map((p) => p.id)).toEqual(live.map((p) => p.id));
    expect(pages[0]).toHaveLength(3);
    const everything = await allPages<Listing>(
      api,
      '/v1/properties?limit=3&include_archived=true',
      fresh.key,
    );
    expect(everything.flat()).toHaveLength(9);
  });

  it('moves a listing edited while paging to the end, so a full pass skips nothing', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const created: Listing[] = [];
    for (let i = 0; i < 7; i++) created.push(await createListing({ title: `Moving ${i}` }, fresh.key));
    const order = [...created].sort(byUpdatedThenId).map((p) => p.id);
    const seen: Listing[] = [];
    // Act
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const first = await api.call('GET', '/v1/properties?limit=3', { key: fresh.key });
    seen.push(...first.body.data);
    const alreadySeen = order[1] as string;
    const notYetSeen = order[4] as string;
    for (const id of [alreadySeen, notYetSeen]) {
      const edit = await api.call('PATCH', `/v1/properties/${id}`, {
        key: fresh.key,
        body: { description: 'edited' },
      });
      expect(edit.status).toBe(200);
      await sleep(3);
    }
    await afterIndexLag(); // the list is read through an index, after the test's writes
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const res = await api.call('GET', `/v1/properties?limit=3&cursor=${encodeURIComponent(cursor)}`, {
        key: fresh.key,
      });
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
    }
    // Assess
    const ids = seen.map((p) => p.id);
    expect(new Set(ids)).toEqual(new Set(order));
    expect(ids.slice(-2)).toEqual([alreadySeen, notYetSeen]);
    expect(ids.filter((id) => id === notYetSeen)).toHaveLength(1);
    expect(ids.filter((id) => id === alreadySeen)).toHaveLength(2);
    expect([...seen].sort(byUpdatedThenId)).toEqual(seen);
  });

  it('filters by updated_since given with Z, +00:00 or another offset', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const older = await createListing({ title: 'Older' }, fresh.key);
    await sleep(30);
    const newer1 = await createListing({ title: 'Newer 1' }, fresh.key);
    const newer2 = await createListing({ title: 'Newer 2' }, fresh.key);
    const between = new Date(Date.parse(older.updated_at) + 15);
    const zulu = between.toISOString();
    const plusZero = zulu.replace('Z', '+00:00');
    const plusTwo = new Date(between.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const expected = [newer1.id, newer2.id];
    await afterIndexLag();
    // Act
    const results = await Promise.all(
      [zulu, plusZero, plusTwo].map((since) =>
        api.call('GET', `/v1/properties?updated_since=${encodeURIComponent(since)}`, { key: fresh.key }),
      ),
    );
    const paged = await allPages<Listing>(
      api,
      `/v1/properties?limit=1&updated_since=${encodeURIComponent(plusZero)}`,
      fresh.key,
    );
    const future = await api.call(
      'GET',
      `/v1/properties?updated_since=${encodeURIComponent('2999-01-01T00:00:00Z')}`,
      {
        key: fresh.key,
      },
    );
    // Assess
    for (const res of results) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.map((p: Listing) => p.id)).toEqual(expected);
    }
    expect(paged.flat().map((p) => p.id)).toEqual(expected);
    expect(future.body).toEqual({ data: [], next_cursor: null });
  });

  it('refuses an updated_since without a UTC offset, a tampered cursor and out-of-range limits with 422', async () => {
    // Prepare
    const fresh = await createTestTenant();
    for (let i = 0; i < 3; i++) await createListing({ title: `Cursor ${i}` }, fresh.key);
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const first = await api.call('GET', '/v1/properties?limit=1', { key: fresh.key });
    const cursor: string = first.body.next_cursor;
    const [data = '', mac = ''] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8'));
    payload.position.updatedAt = '2000-01-01T00:00:00.000Z';
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const flipped = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
    const get = (query: string) => api.call('GET', `/v1/properties?${query}`, { key: fresh.key });
    // Act
    const noOffset = await get('updated_since=2024-01-01T00:00:00');
    const forgedRes = await get(`limit=1&cursor=${encodeURIComponent(forged)}`);
    const flippedRes = await get(`limit=1&cursor=${encodeURIComponent(flipped)}`);
    const garbage = await get('cursor=not-a-cursor');
    const otherFilter = await get(`limit=1&include_archived=true&cursor=${encodeURIComponent(cursor)}`);
    const tooMany = await get('limit=201');
    const zero = await get('limit=0');
    const max = await get('limit=200');
    // Assess
    expect(noOffset.status).toBe(422);
    expect(locs(noOffset.body)).toEqual([['query', 'updated_since']]);
    for (const res of [forgedRes, flippedRes, garbage, otherFilter]) {
      expect(res.status).toBe(422);
      expect(locs(res.body)).toEqual([['query', 'cursor']]);
    }
    for (const res of [tooMany, zero]) {
      expect(res.status).toBe(422);
      expect(locs(res.body)).toEqual([['query', 'limit']]);
    }
    expect(max.status).toBe(200);
    expect(max.body.data).toHaveLength(3);
    expect(max.body.next_cursor).toBeNull();
  });
});

describe('internal_ref', () => {
  it('answers 409 for a duplicate on create and on PATCH, changing nothing', async () => {
    // Prepare
    const ref = unique('REF');
    const holder = await createListing({ title: 'Holder', internal_ref: ref });
    const other = await createListing({ title: 'Other', internal_ref: unique('REF') });
    // Act
    const dupCreate = await api.call('POST', '/v1/properties', {
      body: { title: 'Copycat', internal_ref: ref },
    });
    const dupPatch = await api.call('PATCH', `/v1/properties/${other.id}`, {
      body: { internal_ref: ref, description: 'should not land' },
    });
    // Assess
    expect(dupCreate.status).toBe(409);
    expect(dupPatch.status).toBe(409);
    expect((await api.call('GET', `/v1/properties/${other.id}`)).body).toEqual(other);
    expect((await api.call('GET', `/v1/properties/${holder.id}`)).body).toEqual(holder);
  });

  it('frees the old internal_ref when a listing changes or clears it', async () => {
    // Prepare
    const [r1, r2, r3] = [unique('REF'), unique('REF'), unique('REF')];
    const a = await createListing({ title: 'Renamed ref', internal_ref: r1 });
    const b = await createListing({ title: 'Cleared ref', internal_ref: r3 });
    // Act
    const changed = await api.call('PATCH', `/v1/properties/${a.id}`, { body: { internal_ref: r2 } });
    const cleared = await api.call('PATCH', `/v1/properties/${b.id}`, { body: { internal_ref: null } });
    const reuseOld = await api.call('POST', '/v1/properties', {
      body: { title: 'Takes r1', internal_ref: r1 },
    });
    const reuseCleared = await api.call('POST', '/v1/properties', {
      body: { title: 'Takes r3', internal_ref: r3 },
    });
    const takeNew = await api.call('POST', '/v1/properties', {
      body: { title: 'Wants r2', internal_ref: r2 },
    });
    // Assess
    expect(changed.status).toBe(200);
    expect(changed.body.internal_ref).toBe(r2);
    expect(cleared.status).toBe(200);
    expect(cleared.body.internal_ref).toBeNull();
    expect(reuseOld.status).toBe(201);
    expect(reuseCleared.status).toBe(201);
    expect(takeNew.status).toBe(409);
  });

  it('lets exactly one of 10 concurrent creates with one internal_ref win', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const ref = unique('REF');
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api.call('POST', '/v1/properties', {
          key: fresh.key,
          body: { title: `Race ${i % 2}`, internal_ref: ref },
        }),
      ),
    );
    // Assess
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    const all = (
      await allPages<Listing>(api, '/v1/properties?limit=200&include_archived=true', fresh.key)
    ).flat();
    expect(all.filter((p) => p.internal_ref === ref)).toHaveLength(1);
    expect(all).toHaveLength(1);
    const winner = results.find((r) => r.status === 201);
    expect(all[0]?.id).toBe(winner?.body.id);
  });
});
