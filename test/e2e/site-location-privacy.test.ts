/**
 * Location privacy, one rule over every site read (docs/site-api.md): `exact` publishes address and
 * coordinates as given; `approximate` the coordinates rounded to 2 decimals (about 1 km) and no
 * address; `hidden` neither. Three listings with an address and coordinates, read through search (and `q` on the
 * address's words), by slug, by id, and as similar listings by slug and by id.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { createTestPlaces, createTestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const PAGE = 'https://www.privacy.example';
const tag = randomUUID().slice(0, 6);
/** A street and number found nowhere else in a listing's answer. */
const street = `Ruecachee${tag}`;
const number = '4321';

let api: TestApi;
let siteKey: string;
const listings: Record<'exact' | 'approximate' | 'hidden', { id: string; slug: string }> = {} as never;

beforeAll(async () => {
  const tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  const places = await createTestPlaces();
  siteKey = (await issueSiteKey({ tenantId: tenant.tenantId, origins: PAGE })).key;
  for (const precision of ['exact', 'approximate', 'hidden'] as const) {
    const res = await api.call('POST', '/v1/properties', {
      body: {
        title: `Private ${precision} house`,
        listing_type: 'sale',
        price: '300000',
        currency: 'EUR',
        property_type: 'house',
        bedrooms: 3,
        place_code: places.town.code,
        address: `${number} ${street}, Seatown`,
        latitude: 36.123456,
        longitude: -5.123456,
        location_precision: precision,
      },
    });
    expect(res.status, res.text).toBe(201);
    listings[precision] = { id: res.body.id, slug: res.body.slug };
  }
});
afterAll(async () => api?.close());

function site(path: string) {
  const [base, query] = path.split('?');
  const params = new URLSearchParams(query);
  params.set('key', siteKey);
  params.set('origin', PAGE);
  return api.call('GET', `${base}?${params}`, { key: null, headers: { origin: PAGE } });
}

/** Every listing object of a site answer (a page, a list, or one listing). */
function listingsIn(body: unknown): { id: string }[] {
  if (Array.isArray(body)) return body;
  const b = body as { items?: unknown[]; data?: unknown[]; id?: string };
  return (b.items ?? b.data ?? [b]) as { id: string }[];
}

/**
 * The listing's answer without the fields made of random hex (ids, the test Places' codes) or of the
 * clock: a UUID may hold the street number's digits by chance.
 */
function withoutRandomFields(listing: object): string {
  const {
    id: _id,
    place: _place,
    created_at: _created,
    updated_at: _updated,
    ...rest
  } = listing as Record<string, unknown>;
  return JSON.stringify(rest);
}

function assessPrivacy(read: string, body: unknown) {
  for (const listing of listingsIn(body)) {
    const text = withoutRandomFields(listing);
    const l = listing as { id: string; address: unknown; latitude: unknown; longitude: unknown };
    if (l.id === listings.hidden.id) {
      expect([l.address, l.latitude, l.longitude], `${read}: hidden`).toEqual([null, null, null]);
      expect(text, `${read}: hidden`).not.toContain(street);
      expect(text, `${read}: hidden`).not.toContain(number);
    } else if (l.id === listings.approximate.id) {
      expect([l.address, l.latitude, l.longitude], `${read}: approximate`).toEqual([null, 36.12, -5.12]);
      expect(text, `${read}: approximate`).not.toContain(street);
      expect(text, `${read}: approximate`).not.toContain(number);
    } else if (l.id === listings.exact.id) {
      expect([l.address, l.latitude, l.longitude], `${read}: exact`).toEqual([
        `${number} ${street}, Seatown`,
        36.123456,
        -5.123456,
      ]);
    }
  }
}

describe('location privacy over every site read', () => {
  it('search, by slug, by id and similar (by slug, by id) follow the one rule', async () => {
    // Act
    const reads: Record<string, Awaited<ReturnType<typeof site>>> = {
      search: await site('/v1/site/properties?limit=50'),
    };
    for (const [precision, { id, slug }] of Object.entries(listings)) {
      reads[`by slug (${precision})`] = await site(`/v1/site/properties/by-slug/${slug}`);
      reads[`by id (${precision})`] = await site(`/v1/site/properties/by-id/${id}`);
      reads[`similar by slug (${precision})`] = await site(`/v1/site/properties/by-slug/${slug}/similar`);
      reads[`similar by id (${precision})`] = await site(`/v1/site/properties/${id}/similar`);
    }
    // Assess
    const seen = new Set<string>();
    for (const [read, res] of Object.entries(reads)) {
      expect(res.status, `${read}: ${res.text}`).toBe(200);
      for (const l of listingsIn(res.body)) seen.add(l.id);
      assessPrivacy(read, res.body);
    }
    expect([...seen]).toEqual(expect.arrayContaining(Object.values(listings).map((l) => l.id)));
  });

  it("searching the address's words finds only the exact listing", async () => {
    // Act
    const res = await site(`/v1/site/properties?q=${street}`);
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((i: { id: string }) => i.id)).toEqual([listings.exact.id]);
  });
});
