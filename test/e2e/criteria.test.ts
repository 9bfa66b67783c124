import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertArea } from '../../functions/data/areas.ts';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { createArea } from '../../functions/services/areas.ts';
import { locs } from '../support/api-client.ts';
import { createTestLead, createTestPlaces, createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let places: Awaited<ReturnType<typeof createTestPlaces>>;
let consumer: TestStreamConsumer;

beforeAll(async () => {
  [tenant, other, places] = await Promise.all([createTestTenant(), createTestTenant(), createTestPlaces()]);
  api = await startTestApi(tenant.key);
  // Rescoring is requested by a stream reaction of the criteria write.
  consumer = await startTestStreamConsumer([tenant.tenantId]);
});
afterAll(async () => {
  consumer.stop();
  await api.close();
});

const createLead = (tenantId = tenant.tenantId) => createTestLead(tenantId);

const path = (leadId: string) => `/v1/leads/${leadId}/criteria`;
const EMPTY = {
  listing_type: null,
  min_price: null,
  max_price: null,
  currency: null,
  min_beds: null,
  min_baths: null,
  property_types: [],
  amenities: [],
  place_codes: [],
  area_ids: [],
  notes: null,
  updated_at: null,
  places: [],
  areas: [],
};

/** The score requests queued for a Lead on the local AI queue. */
async function scoreRequests(leadId: string): Promise<unknown[]> {
  const { data } = await LocalQueueMessage.query.byVisibility({ queue: 'ai' }).go({ pages: 'all' });
  return data.map((m) => JSON.parse(m.body)).filter((b) => b.type === 'score' && b.leadId === leadId);
}

describe('GET /v1/leads/{lead_id}/criteria', () => {
  it('answers every default with updated_at null before anything is saved', async () => {
    // Prepare
    const leadId = await createLead();
    // Act
    const res = await api.call('GET', path(leadId));
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(EMPTY);
  });

  it('answers 404 for an unknown lead and for another tenant’s lead', async () => {
    // Prepare
    const foreign = await createLead(other.tenantId);
    // Act
    const unknown = await api.call('GET', path(randomUUID()));
    const theirs = await api.call('GET', path(foreign));
    const mine = await api.call('GET', path(foreign), { key: other.key });
    // Assess
    expect(unknown.status).toBe(404);
    expect(theirs.status).toBe(404);
    expect(mine.status).toBe(200);
  });

  it('answers 422 for a lead_id that is not a UUID', async () => {
    // Act
    const res = await api.call('GET', path('not-a-uuid'));
    // Assess
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['path', 'lead_id']]);
  });
});

describe('PUT /v1/leads/{lead_id}/criteria', () => {
  it('saves the whole criteria, normalised, with its Places and Areas labelled', async () => {
    // Prepare
    const leadId = await createLead();
    const { area } = await createArea({
      tenantId: tenant.tenantId,
      kind: 'region',
      name: 'The Coast',
      placeCodes: [places.region.code],
    });
    const second = (
      await createArea({ tenantId: tenant.tenantId, kind: 'community', name: 'Old Town', placeCodes: [] })
    ).area;
    const body = {
      listing_type: 'sale',
      min_price: 250000,
      max_price: '0400000.50',
      currency: 'eur',
      min_beds: 2,
      min_baths: 1.5,
      property_types: ['Villa', ' APARTMENT ', 'villa'],
      amenities: ['pool', 'garden'],
      place_codes: [places.town.code, 'NO-SUCH-PLACE', places.country.code],
      area_ids: [second.id, area.id.toUpperCase(), second.id],
      notes: 'Sea view, quiet street',
    };
    const before = Date.now();
    // Act
    const res = await api.call('PUT', path(leadId), { body });
    const read = await api.call('GET', path(leadId));
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      listing_type: 'sale',
      min_price: '250000',
      max_price: '400000.50',
      currency: 'EUR',
      min_beds: 2,
      min_baths: '1.5',
      property_types: ['villa', 'apartment'],
      amenities: ['pool', 'garden'],
      place_codes: [places.town.code, 'NO-SUCH-PLACE', places.country.code],
      area_ids: [second.id, area.id],
      notes: 'Sea view, quiet street',
      updated_at: expect.any(String),
      places: [
        {
          code: places.town.code,
          name: 'Seatown',
          kind: 'municipality',
          short: 'Seatown, Coast',
          long: 'Seatown, Coast, Testland',
        },
        { code: places.country.code, name: 'Testland', kind: 'country', short: 'Testland', long: 'Testland' },
      ],
      areas: [
        { id: second.id, kind: 'community', name: 'Old Town' },
        { id: area.id, kind: 'region', name: 'The Coast' },
      ],
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(read.body).toEqual(res.body);
  });

  it('clears every field the next PUT omits, and moves updated_at on', async () => {
    // Prepare
    const leadId = await createLead();
    const first = await api.call('PUT', path(leadId), {
      body: { listing_type: 'rent', max_price: '2000', currency: 'EUR', amenities: ['pool'], notes: 'x' },
    });
    // Act
    const second = await api.call('PUT', path(leadId), { body: { min_beds: 0, property_types: null } });
    // Assess
    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual({ ...EMPTY, min_beds: 0, updated_at: expect.any(String) });
    expect(second.body.updated_at >= first.body.updated_at).toBe(true);
  });

  it('accepts an empty body: everything cleared, updated_at set', async () => {
    // Prepare
    const leadId = await createLead();
    // Act
    const res = await api.call('PUT', path(leadId), { body: {} });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...EMPTY, updated_at: expect.any(String) });
  });

  it('queues rescoring of the Lead (a stream reaction of the write)', async () => {
    // Prepare
    const leadId = await createLead();
    // Act
    const res = await api.call('PUT', path(leadId), { body: { min_beds: 3 } });
    // Assess
    expect(res.status).toBe(200);
    await vi.waitFor(
      async () =>
        expect(await scoreRequests(leadId)).toEqual([
          { type: 'score', tenantId: tenant.tenantId, leadId, requestedAt: res.body.updated_at },
        ]),
      { timeout: 20_000, interval: 100 },
    );
  });

  it('accepts the bounds themselves', async () => {
    // Prepare
    const leadId = await createLead();
    const now = new Date().toISOString();
    const fiftyAreas = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        insertArea({
          tenantId: tenant.tenantId,
          id: randomUUID(),
          kind: 'community',
          name: `Community ${i}`,
          placeCodes: [],
          createdAt: now,
          updatedAt: now,
        }),
      ),
    );
    const body = {
      min_price: 0,
      max_price: '0',
      currency: 'usd',
      min_beds: 0,
      min_baths: '0',
      property_types: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(100, 'x')),
      place_codes: Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(32, 'P')),
      area_ids: fiftyAreas.map((a) => a.id),
    };
    // Act
    const res = await api.call('PUT', path(leadId), { body });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      min_price: '0',
      max_price: '0',
      currency: 'USD',
      places: [],
    });
    expect(res.body.areas).toHaveLength(50);
    expect(res.body.property_types).toHaveLength(20);
    expect(res.body.place_codes).toHaveLength(50);
    expect(res.body.area_ids).toHaveLength(50);
  });

  const tooMany = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i));

  it.each<[string, Record<string, unknown>, (string | number)[]]>([
    ['51 place_codes', { place_codes: tooMany(51, (i) => `P${i}`) }, ['body', 'place_codes']],
    ['a 33-character place code', { place_codes: ['P'.repeat(33)] }, ['body', 'place_codes', 0]],
    ['an empty place code', { place_codes: ['ok', ''] }, ['body', 'place_codes', 1]],
    ['21 property_types', { property_types: tooMany(21, (i) => `t${i}`) }, ['body', 'property_types']],
    ['a 101-character property type', { property_types: ['x'.repeat(101)] }, ['body', 'property_types', 0]],
    ['an empty property type', { property_types: ['  '] }, ['body', 'property_types', 0]],
    ['min_price without currency', { min_price: '100000' }, ['body', 'currency']],
    ['max_price without currency', { max_price: 500000, currency: null }, ['body', 'currency']],
    ['currency EURO', { currency: 'EURO' }, ['body', 'currency']],
    ['currency E1R', { currency: 'E1R' }, ['body', 'currency']],
    ['min_beds -1', { min_beds: -1 }, ['body', 'min_beds']],
    ['min_beds 1.5', { min_beds: 1.5 }, ['body', 'min_beds']],
    ['min_beds as text', { min_beds: '2' }, ['body', 'min_beds']],
    ['min_baths -0.5', { min_baths: -0.5 }, ['body', 'min_baths']],
    ['min_baths "-0.5"', { min_baths: '-0.5' }, ['body', 'min_baths']],
    ['min_baths "two"', { min_baths: 'two' }, ['body', 'min_baths']],
    ['min_price -1', { min_price: -1, currency: 'EUR' }, ['body', 'min_price']],
    ['min_price true', { min_price: true, max_price: 5, currency: 'EUR' }, ['body', 'min_price']],
    ['max_price "1e6"', { max_price: '1e6', currency: 'EUR' }, ['body', 'max_price']],
    ['max_price with 3 decimals', { max_price: 10.005, currency: 'EUR' }, ['body', 'max_price']],
    ['a 65-character decimal', { min_price: `${'0'.repeat(64)}x`, currency: 'EUR' }, ['body', 'min_price']],
    [
      'min_price above max_price',
      { min_price: '500000', max_price: 400000, currency: 'EUR' },
      ['body', 'max_price'],
    ],
    ['area_ids not uuids', { area_ids: ['area-1'] }, ['body', 'area_ids', 0]],
    ['51 area_ids', { area_ids: tooMany(51, () => randomUUID()) }, ['body', 'area_ids']],
    ['listing_type lease', { listing_type: 'lease' }, ['body', 'listing_type']],
    ['an unknown amenity', { amenities: ['pool', 'moat'] }, ['body', 'amenities', 1]],
    ['notes of 10,001 characters', { notes: 'n'.repeat(10_001) }, ['body', 'notes']],
  ])('refuses %s with 422 naming the field, and writes nothing', async (_what, body, loc) => {
    // Prepare
    const leadId = await createLead();
    const saved = await api.call('PUT', path(leadId), { body: { min_beds: 1 } });
    // Act
    const res = await api.call('PUT', path(leadId), { body });
    const after = await api.call('GET', path(leadId));
    // Assess
    expect(res.status, res.text).toBe(422);
    expect(locs(res.body)).toContainEqual(loc);
    expect(after.body).toEqual(saved.body);
  });

  it('answers 404 for an unknown lead and another tenant’s lead, writing nothing', async () => {
    // Prepare
    const foreign = await createLead(other.tenantId);
    // Act
    const unknown = await api.call('PUT', path(randomUUID()), { body: { min_beds: 1 } });
    const theirs = await api.call('PUT', path(foreign), { body: { min_beds: 1 } });
    const theirView = await api.call('GET', path(foreign), { key: other.key });
    // Assess
    expect(unknown.status).toBe(404);
    expect(theirs.status).toBe(404);
    expect(theirView.body).toEqual(EMPTY);
  });

  it('needs leads:write; leads:read may only read', async () => {
    // Prepare
    const leadId = await createLead();
    const reader = await tenant.newKey(['leads:read']);
    // Act
    const put = await api.call('PUT', path(leadId), { key: reader.key, body: { min_beds: 1 } });
    const get = await api.call('GET', path(leadId), { key: reader.key });
    // Assess
    expect(put.status).toBe(403);
    expect(get.status).toBe(200);
  });
});
