/**
 * The listing model over HTTP (docs/listings.md): every writable field and
 * its 422s, Agents, upsert by internal_ref, languages, slugs, price history and the enrichment
 * status, through the real local HTTP server.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findListingClaim, getListing } from '../../functions/data/listings.ts';
import { ProviderError } from '../../functions/kernel/ports/ai.ts';
import { setEnrichmentProvider } from '../../functions/kernel/ports/ai-provider.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { enrichListing } from '../../functions/services/enrichment.ts';
import { parseArgs } from '../../scripts/admin/args.ts';
import { commands } from '../../scripts/admin/commands.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import type { Output } from '../support/api-client.ts';
import { locs } from '../support/api-client.ts';
import { afterIndexLag } from '../support/eventually.ts';
import {
  createTestAgent,
  createTestPlaces,
  createTestTenant,
  type TestTenant,
  unique,
} from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/** The listing as the API (and the admin CLI's `listing show`) answers it. */
type Listing = Output<'getProperty'>;

let api: TestApi;
let tenant: TestTenant;
let places: Awaited<ReturnType<typeof createTestPlaces>>;

beforeAll(async () => {
  [tenant, places] = await Promise.all([
    createTestTenant({ languages: ['en', 'es', 'de'] }),
    createTestPlaces(),
  ]);
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());
afterEach(() => {
  bindLocalAdapters();
});

async function create(
  body: Record<string, unknown>,
  options: { key?: string; lang?: string } = {},
): Promise<Listing> {
  const query = options.lang ? `?lang=${options.lang}` : '';
  const res = await api.call('POST', `/v1/properties${query}`, {
    body,
    ...(options.key ? { key: options.key } : {}),
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const read = async (id: string, query = '', key?: string): Promise<Listing> => {
  const res = await api.call('GET', `/v1/properties/${id}${query}`, key ? { key } : {});
  expect(res.status, res.text).toBe(200);
  return res.body;
};

const patch = (id: string, body: unknown, query = '', key?: string) =>
  api.call('PATCH', `/v1/properties/${id}${query}`, { body, ...(key ? { key } : {}) });

/** The whole list as an integrator sees it once the index has followed the test's writes. */
const listAll = async (key: string): Promise<Listing[]> => {
  await afterIndexLag();
  return (await api.call('GET', '/v1/properties?limit=200&include_archived=true', { key })).body.data;
};

/** The admin CLI's `listing show`, run in-process. */
async function listingShow(slug: string, id: string): Promise<Listing & Record<string, unknown>> {
  const { flags } = parseArgs(['--tenant', slug, '--id', id]);
  // The API's resource, plus what only ops see (authorship, price history, enrichment state).
  return (await commands['listing show']!.run(flags, () => () => undefined)) as Listing &
    Record<string, unknown>;
}

describe('every writable field', () => {
  it('stores and returns each writable field as sent (normalised), with defaults for the rest', async () => {
    // Prepare
    const ref = unique('REF');
    const body = {
      title: 'Villa Mar',
      description: 'Sea views',
      listing_type: 'sale',
      price: '+0450000.00',
      currency: 'eur',
      rent_price: '2500',
      property_type: 'Villa',
      bedrooms: 4,
      bathrooms: '2.5',
      area: '180.50',
      lot_area: '1200',
      parking_spaces: 2,
      year_built: 2005,
      floor: -1,
      hoa_fee: '150.00',
      amenities: ['pool', 'garden', 'pool'],
      address: 'Calle Mayor 1',
      latitude: 36.5101,
      longitude: -4.8825,
      location_precision: 'approximate',
      is_featured: true,
      video_url: 'https://video.example.com/v/1',
      tour_url: 'https://tour.example.com/t/1',
      highlights: ['Sea views', 'Quiet street'],
      internal_ref: ref,
      place_code: places.town.code,
      ai_enrichment: false,
    };
    // Act
    const created = await create(body);
    // Assess
    expect(created).toMatchObject({
      title: 'Villa Mar',
      description: 'Sea views',
      listing_type: 'sale',
      price: '450000.00',
      currency: 'EUR',
      rent_price: '2500',
      property_type: 'villa',
      bedrooms: 4,
      bathrooms: '2.5',
      area: '180.50',
      lot_area: '1200',
      parking_spaces: 2,
      year_built: 2005,
      floor: -1,
      hoa_fee: '150.00',
      amenities: ['pool', 'garden'],
      address: 'Calle Mayor 1',
      latitude: 36.5101,
      longitude: -4.8825,
      location_precision: 'approximate',
      is_featured: true,
      video_url: 'https://video.example.com/v/1',
      tour_url: 'https://tour.example.com/t/1',
      highlights: ['Sea views', 'Quiet street'],
      internal_ref: ref,
      place_code: places.town.code,
      ai_enrichment: false,
      enrichment_status: null,
      language: 'en',
      source_language: 'en',
      untranslated: [],
      status: 'live',
      needs_location: false,
      origin: 'api',
      agent_id: null,
    });
    expect(created.place).toEqual({
      code: places.town.code,
      path: [
        { code: places.country.code, name: 'Testland', kind: 'country' },
        { code: places.region.code, name: 'Coast', kind: 'region' },
        { code: places.town.code, name: 'Seatown', kind: 'municipality' },
      ],
      short: 'Seatown, Coast',
      long: 'Seatown, Coast, Testland',
    });
    const reread = await read(created.id);
    expect(reread).toEqual({ ...created, areas: reread.areas });
  });

  it('defaults the optional flags and lists for a title-only listing', async () => {
    const created = await create({ title: 'Bare' });
    expect(created).toMatchObject({
      amenities: [],
      highlights: [],
      location_precision: 'exact',
      is_featured: false,
      ai_enrichment: true,
      enrichment_status: 'pending',
      place: null,
      areas: [],
      seo_description: null,
    });
  });

  it('clears each nullable field with null and leaves omitted ones', async () => {
    // Prepare
    const created = await create({
      title: 'Clear me',
      area: '90',
      parking_spaces: 1,
      amenities: ['garden'],
      video_url: 'https://v.example.com/1',
      highlights: ['One'],
      latitude: 10,
      longitude: 20,
      is_featured: true,
    });
    // Act
    const res = await patch(created.id, {
      area: null,
      parking_spaces: null,
      amenities: null,
      video_url: null,
      highlights: null,
      latitude: null,
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      area: null,
      parking_spaces: null,
      amenities: [],
      video_url: null,
      highlights: [],
      latitude: null,
      longitude: 20,
      is_featured: true,
      title: 'Clear me',
    });
  });

  it('keeps coordinates to 7 decimals: as sent up to 7, rounded past them, a denormal one as 0', async () => {
    // Prepare: 5e-324 is a valid JSON number that DynamoDB's number type cannot hold (below 1e-130).
    const exact = await create({ title: 'Seven decimals', latitude: 41.3887901, longitude: -179.9999999 });
    // Act
    const fine = await create({ title: 'Finer', latitude: 41.123456789, longitude: 2.00000004 });
    const tiny = await create({ title: 'Tiny', latitude: 5e-324, longitude: -5e-324 });
    const moved = await patch(exact.id, { latitude: -1e-200 });
    // Assess
    expect(exact).toMatchObject({ latitude: 41.3887901, longitude: -179.9999999 });
    expect(fine).toMatchObject({ latitude: 41.1234568, longitude: 2 });
    expect(tiny).toMatchObject({ latitude: 0, longitude: 0 });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ latitude: 0, longitude: -179.9999999 });
  });

  const badValues: [string, unknown][] = [
    ['area', 'abc'],
    ['area', '1.234'],
    ['lot_area', '-5'],
    ['hoa_fee', '12,50'],
    ['bathrooms', '-1'],
    ['price', 'free'],
    ['bedrooms', 2.5],
    ['parking_spaces', -1],
    ['year_built', 999],
    ['year_built', 3000],
    ['floor', 301],
    ['floor', 1.5],
    ['latitude', 91],
    ['latitude', -90.5],
    ['longitude', 181],
    ['video_url', 'http://video.example.com/v/1'],
    ['video_url', 'not a url'],
    ['tour_url', 'ftp://tour.example.com/t'],
    ['highlights', ['1', '2', '3', '4', '5', '6', '7']],
    ['location_precision', 'fuzzy'],
    ['listing_type', 'lease'],
    ['currency', 'EURO'],
    ['is_featured', 'yes'],
    ['ai_enrichment', null],
  ];

  it.each(badValues)(
    'refuses %s = %j with 422 naming the field, on create and on edit, writing nothing',
    async (field, value) => {
      // Prepare
      const fresh = await createTestTenant();
      const existing = await create({ title: 'Untouched', price: '1000', area: '50' }, { key: fresh.key });
      // Act
      const onCreate = await api.call('POST', '/v1/properties', {
        key: fresh.key,
        body: { title: 'Half written?', price: '2000', [field]: value },
      });
      const onEdit = await patch(existing.id, { price: '3000', [field]: value }, '', fresh.key);
      // Assess
      for (const res of [onCreate, onEdit]) {
        expect(res.status, res.text).toBe(422);
        expect(locs(res.body).map((l) => l.slice(0, 2))).toEqual([['body', field]]);
      }
      expect((await listAll(fresh.key)).map((p) => p.id)).toEqual([existing.id]);
      expect(await read(existing.id, '', fresh.key)).toEqual(existing);
    },
  );

  it('refuses an unknown amenity code, naming the amenities field', async () => {
    // Act
    const res = await api.call('POST', '/v1/properties', {
      body: { title: 'Pool?', amenities: ['pool', 'helipad'] },
    });
    // Assess
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([['body', 'amenities', 1]]);
    expect(res.body.detail[0].msg).toMatch(/Unknown amenity code/);
  });

  it('reports every bad field of one request at once', async () => {
    const res = await api.call('POST', '/v1/properties', {
      body: { title: 'Many', latitude: 91, longitude: 181, parking_spaces: -1 },
    });
    expect(res.status).toBe(422);
    expect(locs(res.body).sort()).toEqual([
      ['body', 'latitude'],
      ['body', 'longitude'],
      ['body', 'parking_spaces'],
    ]);
  });
});

describe('Agent', () => {
  it('resolves agent_id or agent_email (case-insensitive), and null clears it', async () => {
    // Prepare
    const agent = await createTestAgent(tenant.tenantId, 'Ana');
    const other = await createTestAgent(tenant.tenantId, 'Bea');
    // Act
    const byId = await create({ title: 'By id', agent_id: agent.id });
    const byEmail = await create({ title: 'By email', agent_email: agent.email.toUpperCase() });
    const switched = await patch(byEmail.id, { agent_email: other.email });
    const clearedById = await patch(byId.id, { agent_id: null });
    const clearedByEmail = await patch(byEmail.id, { agent_email: null });
    // Assess
    expect(byId.agent_id).toBe(agent.id);
    expect(byEmail.agent_id).toBe(agent.id);
    expect(switched.body.agent_id).toBe(other.id);
    expect(clearedById.body.agent_id).toBeNull();
    expect(clearedByEmail.body.agent_id).toBeNull();
  });

  it('refuses both agent_id and agent_email, an unknown Agent and another Tenant’s Agent with 422', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const mine = await createTestAgent(fresh.tenantId);
    const foreign = await createTestAgent(tenant.tenantId);
    const existing = await create({ title: 'Keeps its agent', agent_id: mine.id }, { key: fresh.key });
    const cases: [Record<string, unknown>, string][] = [
      [{ agent_id: mine.id, agent_email: mine.email }, 'agent_email'],
      [{ agent_id: randomUUID() }, 'agent_id'],
      [{ agent_id: foreign.id }, 'agent_id'],
      [{ agent_email: 'nobody@example.com' }, 'agent_email'],
      [{ agent_email: foreign.email }, 'agent_email'],
      [{ agent_id: 'not-a-uuid' }, 'agent_id'],
    ];
    for (const [agentFields, field] of cases) {
      // Act
      const onCreate = await api.call('POST', '/v1/properties', {
        key: fresh.key,
        body: { title: 'No agent', internal_ref: 'HALF-1', ...agentFields },
      });
      const onEdit = await patch(existing.id, { description: 'half', ...agentFields }, '', fresh.key);
      // Assess
      for (const res of [onCreate, onEdit]) {
        expect(res.status, `${JSON.stringify(agentFields)}: ${res.text}`).toBe(422);
        expect(locs(res.body)).toEqual([['body', field]]);
      }
    }
    expect((await listAll(fresh.key)).map((p) => p.id)).toEqual([existing.id]);
    expect(await read(existing.id, '', fresh.key)).toEqual(existing);
    // the refused creates claimed nothing: the reference is still free
    expect(
      (
        await api.call('POST', '/v1/properties', {
          key: fresh.key,
          body: { title: 'Ref', internal_ref: 'HALF-1' },
        })
      ).status,
    ).toBe(201);
  });
});

describe('PUT /v1/properties/by-ref/{internal_ref}', () => {
  it('creates a listing with the reference (201), then edits it by PATCH rules (200)', async () => {
    // Prepare
    const ref = unique('SYNC');
    const path = `/v1/properties/by-ref/${encodeURIComponent(ref)}`;
    // Act
    const created = await api.call('PUT', path, {
      body: {
        title: 'Synced flat',
        description: 'From the CRM',
        price: '200000',
        currency: 'EUR',
        bedrooms: 2,
      },
    });
    const updated = await api.call('PUT', path, { body: { title: 'Synced flat', price: '210000' } });
    const same = await api.call('PUT', path, { body: { title: 'Synced flat', internal_ref: ref } });
    // Assess
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ internal_ref: ref, origin: 'api', price: '200000', bedrooms: 2 });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      internal_ref: ref,
      description: 'From the CRM',
      price: '210000',
      currency: 'EUR',
      bedrooms: 2,
      slug: created.body.slug,
    });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(updated.body.updated_at);
    const all = await listAll(tenant.key);
    expect(all.filter((p) => p.internal_ref === ref)).toHaveLength(1);
  });

  it('handles a reference with spaces and punctuation in the path', async () => {
    const ref = `${unique('A')} B&C+1`;
    const res = await api.call('PUT', `/v1/properties/by-ref/${encodeURIComponent(ref)}`, {
      body: { title: 'Odd ref' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.internal_ref).toBe(ref);
  });

  it('refuses a body internal_ref that differs from the path, and a missing title, with 422', async () => {
    // Prepare
    const ref = unique('SYNC');
    const path = `/v1/properties/by-ref/${ref}`;
    // Act
    const differs = await api.call('PUT', path, {
      body: { title: 'Mismatch', internal_ref: `${ref}-other` },
    });
    const untitled = await api.call('PUT', path, { body: { price: '1' } });
    // Assess
    expect(differs.status).toBe(422);
    expect(locs(differs.body)).toEqual([['body', 'internal_ref']]);
    expect(untitled.status).toBe(422);
    expect(locs(untitled.body)).toEqual([['body', 'title']]);
    expect(await findListingClaim(tenant.tenantId, 'property-ref', ref)).toBeUndefined();
    expect(await findListingClaim(tenant.tenantId, 'property-ref', `${ref}-other`)).toBeUndefined();
  });

  it('lets exactly one of 10 concurrent PUTs of a new reference create it; the rest update it', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const ref = unique('RACE');
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.call('PUT', `/v1/properties/by-ref/${ref}`, {
          key: fresh.key,
          body: { title: 'Raced listing', price: '100000', currency: 'EUR' },
        }),
      ),
    );
    // Assess
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, results.map((r) => r.text).join('\n')).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 201,
    ]);
    const all = await listAll(fresh.key);
    expect(all).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.id))).toEqual(new Set([all[0]?.id]));
    expect(all[0]).toMatchObject({ internal_ref: ref, slug: 'raced-listing' });
  });

  it('answers 409 when an edit takes a reference another listing holds', async () => {
    // Prepare
    const [r1, r2] = [unique('REF'), unique('REF')];
    await create({ title: 'Holder', internal_ref: r1 });
    const other = await api.call('PUT', `/v1/properties/by-ref/${r2}`, { body: { title: 'Other' } });
    // Act
    const taken = await patch(other.body.id, { internal_ref: r1 });
    // Assess
    expect(taken.status).toBe(409);
    expect((await read(other.body.id)).internal_ref).toBe(r2);
  });
});

describe('languages', () => {
  it('writes and reads text per Site Language with ?lang=, never losing the source text', async () => {
    // Act: created in Spanish
    const created = await create(
      { title: 'Piso luminoso', description: 'Mucha luz', highlights: ['Luz natural'], ai_enrichment: false },
      { lang: 'es' },
    );
    const own = await read(created.id);
    const inGerman = await read(created.id, '?lang=de');
    const edited = await patch(
      created.id,
      { title: 'Helle Wohnung', highlights: ['Viel Licht'] },
      '?lang=de',
    );
    const germanAfter = await read(created.id, '?lang=de');
    const ownAfter = await read(created.id);
    const spanishAfter = await read(created.id, '?lang=es');
    const english = await read(created.id, '?lang=en');
    // Assess
    expect(created).toMatchObject({
      language: 'es',
      source_language: 'es',
      title: 'Piso luminoso',
      highlights: ['Luz natural'],
      untranslated: [],
    });
    expect(own).toMatchObject({ language: 'es', title: 'Piso luminoso', description: 'Mucha luz' });
    expect(inGerman).toMatchObject({
      language: 'de',
      source_language: 'es',
      title: 'Piso luminoso',
      description: 'Mucha luz',
      highlights: [],
      untranslated: ['title', 'description'],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({
      language: 'de',
      title: 'Helle Wohnung',
      description: 'Mucha luz',
      highlights: ['Viel Licht'],
      untranslated: ['description'],
    });
    expect(germanAfter).toMatchObject({ title: 'Helle Wohnung', highlights: ['Viel Licht'] });
    expect(ownAfter).toMatchObject({
      title: 'Piso luminoso',
      description: 'Mucha luz',
      highlights: ['Luz natural'],
      slug: created.slug,
    });
    expect(spanishAfter).toEqual(ownAfter);
    expect(english).toMatchObject({
      title: 'Piso luminoso',
      highlights: [],
      untranslated: ['title', 'description'],
    });
  });

  it('uses the Tenant’s first Site Language without ?lang=', async () => {
    const created = await create({ title: 'Default language' });
    expect(created).toMatchObject({ language: 'en', source_language: 'en' });
  });

  it('refuses a language the Tenant has not enabled with 422 on query.lang: create, edit, upsert and reads', async () => {
    // Prepare
    const fresh = await createTestTenant({ languages: ['en', 'es'] });
    const existing = await create({ title: 'English only' }, { key: fresh.key });
    // Act
    const results = [
      await api.call('POST', '/v1/properties?lang=de', { key: fresh.key, body: { title: 'Deutsch' } }),
      await patch(existing.id, { title: 'Neu' }, '?lang=de', fresh.key),
      await api.call('PUT', `/v1/properties/by-ref/${unique('R')}?lang=fr`, {
        key: fresh.key,
        body: { title: 'Fr' },
      }),
      await api.call('GET', `/v1/properties/${existing.id}?lang=de`, { key: fresh.key }),
      await api.call('GET', '/v1/properties?lang=de', { key: fresh.key }),
      await api.call('GET', `/v1/properties/${existing.id}?lang=EN`, { key: fresh.key }),
    ];
    // Assess
    for (const res of results) {
      expect(res.status, res.text).toBe(422);
      expect(locs(res.body)).toEqual([['query', 'lang']]);
    }
    expect((await listAll(fresh.key)).map((p) => p.id)).toEqual([existing.id]);
    expect(await read(existing.id, '', fresh.key)).toEqual(existing);
  });

  it('keeps highlights per language', async () => {
    // Prepare
    const created = await create({
      title: 'Per language',
      highlights: ['English one'],
      ai_enrichment: false,
    });
    // Act
    await patch(created.id, { highlights: ['Uno', 'Dos'] }, '?lang=es');
    await patch(created.id, { highlights: ['One', 'Two', 'Three'] });
    // Assess
    expect((await read(created.id)).highlights).toEqual(['One', 'Two', 'Three']);
    expect((await read(created.id, '?lang=es')).highlights).toEqual(['Uno', 'Dos']);
    expect((await read(created.id, '?lang=de')).highlights).toEqual([]);
  });

  it('keeps the text a client wrote in a language when the enrichment worker runs', async () => {
    // Prepare
    const created = await create(
      { title: 'Sunny villa', description: 'Near the beach', bedrooms: 3, amenities: ['pool'] },
      { lang: 'en' },
    );
    await patch(created.id, { title: 'Sonnige Villa', highlights: ['Unser Pool'] }, '?lang=de');
    const stored = await getListing(tenant.tenantId, created.id);
    // Act
    await enrichListing({
      type: 'enrich',
      tenantId: tenant.tenantId,
      propertyId: created.id,
      requestId: stored?.enrichmentRequestId as string,
      attempt: 1,
    });
    // Assess
    const german = await read(created.id, '?lang=de');
    const spanish = await read(created.id, '?lang=es');
    const own = await read(created.id);
    expect(german).toMatchObject({
      enrichment_status: 'enriched',
      title: 'Sonnige Villa',
      highlights: ['Unser Pool'],
      untranslated: ['description'],
    });
    expect(german.seo_description).toEqual(expect.any(String));
    expect(spanish).toMatchObject({ title: 'Sunny villa', untranslated: ['title', 'description'] });
    expect(spanish.highlights).toContain('3 dormitorios');
    expect(spanish.seo_description?.length).toBeLessThanOrEqual(160);
    expect(own).toMatchObject({ title: 'Sunny villa', description: 'Near the beach' });
    expect(own.highlights).toContain('3 bedrooms');
  });
});

describe('slugs', () => {
  it('retires the old slug on a title change (it still names the listing) and revives it on renaming back', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const created = await create({ title: 'Casa Azul', place_code: places.town.code }, { key: fresh.key });
    // Act
    const renamed = await patch(created.id, { title: 'Casa Verde' }, '', fresh.key);
    const retired = await findListingClaim(fresh.tenantId, 'property-slug', 'casa-azul');
    const lookalike = await create({ title: 'Casa Azul' }, { key: fresh.key });
    const back = await patch(created.id, { title: 'Casa Azul' }, '', fresh.key);
    // Assess
    expect(created.slug).toBe('casa-azul');
    expect(renamed.body.slug).toBe('casa-verde');
    expect(retired).toEqual({ ownerId: created.id, retired: true });
    expect(lookalike.slug).toBe('casa-azul-2');
    expect(back.body.slug).toBe('casa-azul');
    expect(await findListingClaim(fresh.tenantId, 'property-slug', 'casa-azul')).toEqual({
      ownerId: created.id,
      retired: false,
    });
    expect(await findListingClaim(fresh.tenantId, 'property-slug', 'casa-verde')).toEqual({
      ownerId: created.id,
      retired: true,
    });
  });

  it('keeps a suffixed slug when a title edit still slugs to the same base', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const first = await create({ title: 'Casa Roja' }, { key: fresh.key });
    const second = await create({ title: 'Casa Roja' }, { key: fresh.key });
    // Act
    const recased = await patch(second.id, { title: 'CASA roja' }, '', fresh.key);
    // Assess
    expect([first.slug, second.slug]).toEqual(['casa-roja', 'casa-roja-2']);
    expect(recased.status, recased.text).toBe(200);
    expect(recased.body).toMatchObject({ title: 'CASA roja', slug: 'casa-roja-2' });
    expect(await findListingClaim(fresh.tenantId, 'property-slug', 'casa-roja-2')).toEqual({
      ownerId: second.id,
      retired: false,
    });
  });

  it('keeps the slug for a text change in another language and for an edit that does not touch the title', async () => {
    const created = await create({ title: `Stable ${unique('s')}` });
    await patch(created.id, { title: 'Ganz anders' }, '?lang=de');
    await patch(created.id, { description: 'New description', title: created.title });
    expect((await read(created.id)).slug).toBe(created.slug);
  });

  it('keeps the slug and its claim when the listing is archived', async () => {
    // Prepare
    const created = await create({ title: `Archived ${unique('a')}`, place_code: places.town.code });
    // Act
    const res = await api.call('DELETE', `/v1/properties/${created.id}`);
    // Assess
    expect(res.status).toBe(204);
    const archived = await read(created.id);
    expect(archived).toMatchObject({ status: 'archived', slug: created.slug });
    expect(await findListingClaim(tenant.tenantId, 'property-slug', created.slug)).toEqual({
      ownerId: created.id,
      retired: false,
    });
  });
});

describe('price history and who wrote it', () => {
  it('records every price change in order with amount, currency, when and the key’s name', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const crm = await fresh.newKey(['properties:write'], { name: 'crm-sync' });
    const created = await create({ title: 'Priced', price: '100000', currency: 'EUR' }, { key: fresh.key });
    // Act
    const steps = [
      await patch(created.id, { price: '95000' }, '', crm.key),
      await patch(created.id, { description: 'no price change' }, '', crm.key),
      await patch(created.id, { price: '95000.00' }, '', crm.key),
      await patch(created.id, { currency: 'USD' }, '', crm.key),
      await patch(created.id, { rent_price: '1200' }, '', crm.key),
      await patch(created.id, { price: null }, '', crm.key),
    ];
    const shown = await listingShow(fresh.slug, created.id);
    // Assess
    for (const step of steps) expect(step.status, step.text).toBe(200);
    const history = shown.price_history as { changed_at: string }[];
    expect(history).toEqual([
      {
        price: '100000',
        rent_price: null,
        currency: 'EUR',
        changed_at: created.created_at,
        changed_by: 'test-full',
      },
      {
        price: '95000',
        rent_price: null,
        currency: 'EUR',
        changed_at: expect.any(String),
        changed_by: 'crm-sync',
      },
      {
        price: '95000.00',
        rent_price: null,
        currency: 'EUR',
        changed_at: expect.any(String),
        changed_by: 'crm-sync',
      },
      {
        price: '95000.00',
        rent_price: null,
        currency: 'USD',
        changed_at: expect.any(String),
        changed_by: 'crm-sync',
      },
      {
        price: '95000.00',
        rent_price: '1200',
        currency: 'USD',
        changed_at: expect.any(String),
        changed_by: 'crm-sync',
      },
      {
        price: null,
        rent_price: '1200',
        currency: 'USD',
        changed_at: expect.any(String),
        changed_by: 'crm-sync',
      },
    ]);
    const times = history.map((h) => h.changed_at);
    expect([...times].sort()).toEqual(times);
    expect(new Set(times).size).toBe(times.length);
    expect(shown).toMatchObject({
      id: created.id,
      created_by: 'test-full',
      updated_by: 'crm-sync',
      price: null,
    });
  });

  it('keeps the price history when the listing is archived', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const created = await create({ title: 'Sold', price: '300000', currency: 'EUR' }, { key: fresh.key });
    await patch(created.id, { price: '290000' }, '', fresh.key);
    // Act
    await api.call('DELETE', `/v1/properties/${created.id}`, { key: fresh.key });
    // Assess
    const shown = await listingShow(fresh.slug, created.id);
    expect(shown.status).toBe('archived');
    expect((shown.price_history as { price: string }[]).map((h) => h.price)).toEqual(['300000', '290000']);
  });
});

describe('enrichment_status over HTTP', () => {
  it('shows pending, enriched, failed, off and paused, and null when ai_enrichment is false', async () => {
    // Prepare
    const on = await createTestTenant();
    const off = await createTestTenant();
    const capped = await createTestTenant();
    await off.update({ aiEnabled: false });
    await capped.update({ aiMonthlyLimitUsd: 0 });
    const run = async (id: string, tenantId: string, attempt = 1) => {
      const stored = await getListing(tenantId, id);
      await enrichListing({
        type: 'enrich',
        tenantId,
        propertyId: id,
        requestId: stored?.enrichmentRequestId as string,
        attempt,
      });
    };
    // Act
    const pending = await create({ title: 'Pending', bedrooms: 2 }, { key: on.key });
    const toEnrich = await create({ title: 'Enriched', bedrooms: 2 }, { key: on.key });
    await run(toEnrich.id, on.tenantId);
    const toFail = await create({ title: 'Failing' }, { key: on.key });
    setEnrichmentProvider({
      name: 'broken',
      enrich: async () => {
        throw new ProviderError('broken');
      },
    });
    setQueue({ send: async () => undefined });
    for (const attempt of [1, 2, 3, 4]) await run(toFail.id, on.tenantId, attempt);
    const skipped = await create({ title: 'No AI', ai_enrichment: false }, { key: on.key });
    const heldOff = await create({ title: 'Off' }, { key: off.key });
    const paused = await create({ title: 'Paused' }, { key: capped.key });
    // Assess
    expect(pending.enrichment_status).toBe('pending');
    expect((await read(toEnrich.id, '', on.key)).enrichment_status).toBe('enriched');
    expect((await read(toFail.id, '', on.key)).enrichment_status).toBe('failed');
    expect(skipped.enrichment_status).toBeNull();
    expect(heldOff.enrichment_status).toBe('off');
    expect(paused.enrichment_status).toBe('paused');
  });
});
