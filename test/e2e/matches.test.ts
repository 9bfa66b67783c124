import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLeadListingLink } from '../../functions/data/lead-listings.ts';
import { createArea, setManualMembership } from '../../functions/services/areas.ts';
import { listOutbox } from '../../scripts/local/adapters/outbox-email.ts';
import { locs, type Output } from '../support/api-client.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestLead, createTestPlaces, createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { injectUnprocessedBatches } from '../support/unprocessed-batches.ts';

type Places = Awaited<ReturnType<typeof createTestPlaces>>;
/** The listing as GET /v1/properties/{id} answers it. */
type Listing = Output<'getProperty'>;

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let coast: Places;
let inland: Places;
let areaId: string;
/** A community of the Tenant that holds no listing. */
let emptyAreaId: string;
/** The Tenant's listings, by letter (see beforeAll). */
const L: Record<string, Listing> = {};
/** Another Tenant's listing that would meet every criterion used here. */
let foreign: Listing;

async function createListing(body: Record<string, unknown>, key = tenant.key): Promise<Listing> {
  const res = await api.call('POST', '/v1/properties', { key, body: { ai_enrichment: false, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as Listing;
}

/** A Lead of the tenant (with an email unless told otherwise). */
const createLead = (options: { tenantId?: string; email?: string | null | undefined } = {}) =>
  createTestLead(options.tenantId ?? tenant.tenantId, { email: options.email });

async function leadWithCriteria(criteria: Record<string, unknown>, email?: string | null): Promise<string> {
  const leadId = await createLead({ email });
  const res = await api.call('PUT', `/v1/leads/${leadId}/criteria`, { body: criteria });
  expect(res.status, res.text).toBe(200);
  return leadId;
}

/** Matches read the Tenant's live listings through an index: asked once it follows the test's writes. */
async function matches(leadId: string) {
  await afterIndexLag();
  const res = await api.call('GET', `/v1/leads/${leadId}/matches`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as { property_id: string; reasons: string[]; sent_at: string | null }[];
}

/** The letters of the listings that match, in the order served. */
async function matchLetters(criteria: Record<string, unknown>): Promise<string[]> {
  const data = await matches(await leadWithCriteria(criteria));
  const letters = new Map(Object.entries(L).map(([letter, l]) => [l.id, letter]));
  return data.map((m) => letters.get(m.property_id) ?? `other:${m.property_id}`);
}

beforeAll(async () => {
  [tenant, other, coast, inland] = await Promise.all([
    createTestTenant(),
    createTestTenant(),
    createTestPlaces(),
    createTestPlaces(),
  ]);
  api = await startTestApi(tenant.key);
  // Created one after another so that created_at orders them A < B < C < D.
  const fixtures: Record<string, Record<string, unknown>> = {
    A: {
      title: 'A: villa on the coast',
      listing_type: 'sale',
      price: '300000',
      currency: 'EUR',
      property_type: 'villa',
      bedrooms: 3,
      bathrooms: '2.5',
      amenities: ['pool', 'garden'],
      place_code: coast.town.code,
    },
    B: {
      title: 'B: flat to rent',
      listing_type: 'rent',
      rent_price: '1500',
      currency: 'EUR',
      property_type: 'apartment',
      bedrooms: 1,
      bathrooms: '1',
      amenities: ['terrace'],
      place_code: coast.town.code,
    },
    C: {
      title: 'C: inland villa priced in dollars',
      listing_type: 'sale',
      price: '300000',
      currency: 'USD',
      property_type: 'villa',
      bedrooms: 4,
      bathrooms: '3',
      amenities: ['pool'],
      place_code: inland.town.code,
    },
    D: {
      title: 'D: townhouse in the region',
      listing_type: 'sale',
      price: '900000',
      currency: 'EUR',
      property_type: 'Townhouse',
      bedrooms: 5,
      bathrooms: '2',
      amenities: ['pool', 'garden', 'terrace'],
      place_code: coast.region.code,
    },
    // Would match most criteria, but is a draft (no Place).
    E: {
      title: 'E: draft',
      listing_type: 'sale',
      price: '300000',
      currency: 'EUR',
      property_type: 'villa',
      bedrooms: 3,
    },
  };
  for (const [letter, body] of Object.entries(fixtures)) L[letter] = await createListing(body);
  // Would match too, but is archived.
  const archived = await createListing({ ...fixtures.A, title: 'F: archived' });
  expect((await api.call('DELETE', `/v1/properties/${archived.id}`)).status).toBe(204);
  L.F = archived;
  foreign = await createListing({ ...fixtures.A, title: 'Another agency' }, other.key);
  // The Coast by rule holds A, B and D; B is taken out by hand, inland C put in by hand.
  const { area } = await createArea({
    tenantId: tenant.tenantId,
    kind: 'region',
    name: 'The Coast',
    placeCodes: [coast.region.code],
  });
  areaId = area.id;
  await setManualMembership(tenant.tenantId, areaId, L.B!.id, 'excluded');
  await setManualMembership(tenant.tenantId, areaId, L.C!.id, 'manual');
  emptyAreaId = (
    await createArea({ tenantId: tenant.tenantId, kind: 'community', name: 'Empty', placeCodes: [] })
  ).area.id;
});
afterAll(async () => api.close());

describe('GET /v1/leads/{lead_id}/matches', () => {
  it('is empty while the Lead has no criteria, or only notes and a currency', async () => {
    // Prepare
    const never = await createLead();
    const notesOnly = await leadWithCriteria({ notes: 'anything nice', currency: 'EUR' });
    // Act / Assess
    expect(await matches(never)).toEqual([]);
    expect(await matches(notesOnly)).toEqual([]);
  });

  it.each<[string, () => Record<string, unknown>, string[]]>([
    ['listing_type', () => ({ listing_type: 'sale' }), ['D', 'C', 'A']],
    ['listing_type rent', () => ({ listing_type: 'rent' }), ['B']],
    [
      'price in the same currency',
      () => ({ min_price: 200000, max_price: '400000', currency: 'eur' }),
      ['A'],
    ],
    [
      'price at the bounds, exactly',
      () => ({ min_price: '300000.00', max_price: 300000, currency: 'EUR' }),
      ['A'],
    ],
    ['price in another currency', () => ({ max_price: '400000', currency: 'USD' }), ['C']],
    ['rent_price of a rental', () => ({ listing_type: 'rent', max_price: 2000, currency: 'EUR' }), ['B']],
    ['rent_price below min', () => ({ listing_type: 'rent', min_price: '1500.01', currency: 'EUR' }), []],
    ['min_beds', () => ({ min_beds: 4 }), ['D', 'C']],
    ['min_baths, exactly', () => ({ min_baths: 2.5 }), ['C', 'A']],
    ['min_baths as a string', () => ({ min_baths: '02.5' }), ['C', 'A']],
    ['property_types', () => ({ property_types: ['VILLA', 'townhouse'] }), ['D', 'C', 'A']],
    ['amenities, every one', () => ({ amenities: ['pool', 'garden'] }), ['D', 'A']],
    ['place_codes: a region covers its towns', () => ({ place_codes: [coast.region.code] }), ['D', 'B', 'A']],
    ['place_codes: a town does not cover its region', () => ({ place_codes: [coast.town.code] }), ['B', 'A']],
    ['place_codes: any of them', () => ({ place_codes: ['NO-SUCH', inland.country.code] }), ['C']],
    ['area_ids: rule and manual members, not excluded', () => ({ area_ids: [areaId] }), ['D', 'C', 'A']],
    ['area_ids: an Area without listings', () => ({ area_ids: [emptyAreaId] }), []],
  ])('matches on %s (and only live listings of the Tenant)', async (_what, criteria, expected) => {
    // Act
    const letters = await matchLetters(criteria());
    // Assess
    expect(letters).toEqual(expected);
  });

  it('needs every criterion, names each one met, and shows the listing', async () => {
    // Prepare
    const leadId = await leadWithCriteria({
      listing_type: 'sale',
      min_price: 250000,
      max_price: 350000,
      currency: 'EUR',
      min_beds: 3,
      min_baths: 2,
      property_types: ['villa'],
      amenities: ['pool'],
      place_codes: [coast.country.code],
      area_ids: [areaId],
    });
    // Act
    const data = await matches(leadId);
    // Assess
    expect(data).toEqual([
      {
        property_id: L.A!.id,
        title: 'A: villa on the coast',
        slug: L.A!.slug,
        listing_type: 'sale',
        property_type: 'villa',
        price: '300000',
        rent_price: null,
        currency: 'EUR',
        bedrooms: 3,
        bathrooms: '2.5',
        place_code: coast.town.code,
        created_at: L.A!.created_at,
        reasons: [
          'listing_type',
          'price',
          'min_beds',
          'min_baths',
          'property_types',
          'amenities',
          'place_codes',
          'area_ids',
        ],
        sent_at: null,
      },
    ]);
  });

  it('follows the listings: one archived or moved away stops matching', async () => {
    // Prepare
    const listing = await createListing({ title: 'Mover', bedrooms: 9, place_code: coast.town.code });
    const leadId = await leadWithCriteria({ min_beds: 9, place_codes: [coast.region.code] });
    const before = await matches(leadId);
    // Act
    await api.call('PATCH', `/v1/properties/${listing.id}`, { body: { place_code: inland.town.code } });
    const moved = await matches(leadId);
    await api.call('PATCH', `/v1/properties/${listing.id}`, { body: { place_code: coast.town.code } });
    await api.call('DELETE', `/v1/properties/${listing.id}`);
    const archived = await matches(leadId);
    // Assess
    expect(before.map((m) => m.property_id)).toEqual([listing.id]);
    expect(moved).toEqual([]);
    expect(archived).toEqual([]);
  });

  it('answers at most 50, newest first', async () => {
    // Prepare
    const crowd = await createTestTenant();
    const created: Listing[] = [];
    for (let i = 0; i < 52; i += 13) {
      created.push(
        ...(await Promise.all(
          Array.from({ length: 13 }, (_, j) =>
            createListing({ title: `Crowd ${i + j}`, bedrooms: 2, place_code: coast.town.code }, crowd.key),
          ),
        )),
      );
    }
    const leadId = await createLead({ tenantId: crowd.tenantId });
    await api.call('PUT', `/v1/leads/${leadId}/criteria`, { key: crowd.key, body: { min_beds: 2 } });
    // Act
    const res = await api.call('GET', `/v1/leads/${leadId}/matches`, { key: crowd.key });
    // Assess
    expect(res.status).toBe(200);
    const expected = created
      .sort((a, b) =>
        a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
      )
      .slice(0, 50)
      .map((l) => l.id);
    expect(res.body.data.map((m: { property_id: string }) => m.property_id)).toEqual(expected);
  });

  it('answers 404 for an unknown lead and another tenant’s lead', async () => {
    // Prepare
    const theirs = await createLead({ tenantId: other.tenantId });
    // Act
    const unknown = await api.call('GET', `/v1/leads/${randomUUID()}/matches`);
    const foreignLead = await api.call('GET', `/v1/leads/${theirs}/matches`);
    // Assess
    expect(unknown.status).toBe(404);
    expect(foreignLead.status).toBe(404);
  });
});

describe('POST /v1/leads/{lead_id}/matches:send', () => {
  const send = async (leadId: string, body: unknown, key?: string) => {
    await afterIndexLag(); // what is a current match is read through the listings index
    return api.call('POST', `/v1/leads/${leadId}/matches:send`, { body, ...(key ? { key } : {}) });
  };

  it('emails the listings to the Lead, records sent_at and links them as interested', async () => {
    // Prepare
    const email = `buyer-${randomUUID().slice(0, 8)}@example.com`;
    const leadId = await leadWithCriteria({ listing_type: 'sale' }, email);
    const outboxBefore = (await listOutbox(tenant.tenantId)).length;
    // Act
    const res = await send(leadId, { property_ids: [L.A!.id, L.C!.id, L.A!.id] });
    const after = await matches(leadId);
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      sent: [
        { property_id: L.A!.id, sent_at: expect.any(String) },
        { property_id: L.C!.id, sent_at: expect.any(String) },
      ],
    });
    const sentAt = res.body.sent[0].sent_at;
    expect(Object.fromEntries(after.map((m) => [m.property_id, m.sent_at]))).toEqual({
      [L.A!.id]: sentAt,
      [L.C!.id]: sentAt,
      [L.D!.id]: null,
    });
    const outbox = await listOutbox(tenant.tenantId);
    expect(outbox).toHaveLength(outboxBefore + 1);
    const mail = outbox.find((m) => m.to === email);
    expect(mail?.text).toContain('A: villa on the coast');
    expect(mail?.text).toContain('C: inland villa priced in dollars');
    expect(mail?.text).toContain('Seatown, Coast, Testland');
    expect(mail?.text).not.toContain('D: townhouse');
    for (const listing of [L.A!, L.C!]) {
      expect(await getLeadListingLink(tenant.tenantId, leadId, listing.id)).toMatchObject({
        role: 'interested',
        source: 'match',
      });
    }
  });

  it('refuses listings that are not current matches or not the Tenant’s, naming each, and does nothing', async () => {
    // Prepare
    const email = `picky-${randomUUID().slice(0, 8)}@example.com`;
    const leadId = await leadWithCriteria({ listing_type: 'sale' }, email);
    const unknown = randomUUID();
    // Act
    const res = await send(leadId, {
      property_ids: [L.A!.id, L.B!.id, foreign.id, L.E!.id, L.F!.id, unknown],
    });
    // Assess
    expect(res.status, res.text).toBe(422);
    expect(locs(res.body)).toEqual([
      ['body', 'property_ids', 1],
      ['body', 'property_ids', 2],
      ['body', 'property_ids', 3],
      ['body', 'property_ids', 4],
      ['body', 'property_ids', 5],
    ]);
    expect(res.body.detail[0].msg).toContain(L.B!.id);
    expect(res.body.detail[1].msg).toContain(foreign.id);
    expect((await listOutbox(tenant.tenantId)).filter((m) => m.to === email)).toEqual([]);
    expect((await matches(leadId)).every((m) => m.sent_at === null)).toBe(true);
    expect(await getLeadListingLink(tenant.tenantId, leadId, L.A!.id)).toBeUndefined();
  });

  it('records the send before emailing: a send it cannot record answers 503 and emails nothing, so a retry emails once', async () => {
    // Prepare
    const email = `throttled-${randomUUID().slice(0, 8)}@example.com`;
    const leadId = await leadWithCriteria({ listing_type: 'sale' }, email);
    const injection = injectUnprocessedBatches({ calls: 1000, keep: 0 });
    // Act
    const refused = await send(leadId, { property_ids: [L.A!.id] }).finally(() => injection.remove());
    const mailsAfterRefusal = (await listOutbox(tenant.tenantId)).filter((m) => m.to === email);
    const retried = await send(leadId, { property_ids: [L.A!.id] });
    // Assess
    expect(refused.status, refused.text).toBe(503);
    expect(mailsAfterRefusal).toEqual([]);
    expect(retried.status, retried.text).toBe(200);
    expect((await listOutbox(tenant.tenantId)).filter((m) => m.to === email)).toHaveLength(1);
  });

  it('refuses a Lead without email at body', async () => {
    // Prepare
    const leadId = await leadWithCriteria({ listing_type: 'sale' }, null);
    // Act
    const res = await send(leadId, { property_ids: [L.A!.id] });
    // Assess
    expect(res.status, res.text).toBe(422);
    expect(locs(res.body)).toEqual([['body']]);
  });

  it('refuses any listing for a Lead without criteria', async () => {
    // Prepare
    const leadId = await createLead();
    // Act
    const res = await send(leadId, { property_ids: [L.A!.id] });
    // Assess
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['body', 'property_ids', 0]]);
  });

  it.each<[string, unknown, (string | number)[]]>([
    ['no property_ids', {}, ['body', 'property_ids']],
    ['an empty list', { property_ids: [] }, ['body', 'property_ids']],
    [
      '21 listings',
      { property_ids: Array.from({ length: 21 }, () => randomUUID()) },
      ['body', 'property_ids'],
    ],
    ['an id that is not a UUID', { property_ids: ['nope'] }, ['body', 'property_ids', 0]],
  ])('refuses %s with 422', async (_what, body, loc) => {
    // Prepare
    const leadId = await leadWithCriteria({ listing_type: 'sale' });
    // Act
    const res = await send(leadId, body);
    // Assess
    expect(res.status, res.text).toBe(422);
    expect(locs(res.body)).toContainEqual(loc);
  });

  it('answers 404 for an unknown lead and another tenant’s lead', async () => {
    // Prepare
    const theirs = await createLead({ tenantId: other.tenantId });
    // Act
    const unknown = await send(randomUUID(), { property_ids: [L.A!.id] });
    const foreignLead = await send(theirs, { property_ids: [foreign.id] });
    // Assess
    expect(unknown.status).toBe(404);
    expect(foreignLead.status).toBe(404);
  });

  it('is routed apart from GET …/matches: another method answers 405', async () => {
    // Prepare
    const leadId = await createLead();
    // Act
    const res = await api.call('GET', `/v1/leads/${leadId}/matches:send`);
    // Assess
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
