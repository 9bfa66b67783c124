import { beforeAll, describe, expect, it } from 'vitest';
import { membershipsOfListing, removeMemberships } from '../../functions/data/areas.ts';
import { findListingClaim, getListing, queryAllListings } from '../../functions/data/listings.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { createArea } from '../../functions/services/areas.ts';
import { importListings } from '../../functions/services/listing-import.ts';
import { editListing, type ListingWriter } from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { withDynamoFaults } from '../../scripts/local/dynamodb-faults.ts';
import { createTestAgent, createTestPlaces, unique } from '../support/factories.ts';

let placeCode: string;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
});

async function newTenant(): Promise<TenantRecord> {
  const created = await createTenantFromAdmin({
    slug: unique('imp'),
    name: 'Import Realty',
    languages: ['en', 'es'],
  });
  return (await getTenant(created.tenantId))!;
}

const keyWriter = (tenant: TenantRecord): ListingWriter => ({ tenant, name: 'crm-key', via: 'api' });

async function byRef(tenant: TenantRecord, ref: string) {
  const claim = await findListingClaim(tenant.tenantId, 'property-ref', ref);
  expect(claim, `no listing holds ${ref}`).toBeDefined();
  return (await getListing(tenant.tenantId, claim!.ownerId))!;
}

function feed(refs: string[], over: Record<string, unknown> = {}) {
  return refs.map((ref, i) => ({
    internal_ref: ref,
    title: `Imported flat ${i}`,
    description: `Flat number ${i}`,
    price: `${100000 + i}`,
    currency: 'EUR',
    bedrooms: 2,
    place_code: placeCode,
    ai_enrichment: false,
    ...over,
  }));
}

describe('importListings', () => {
  it('creates new references with origin import, skips an identical re-import and updates a changed one', async () => {
    // Prepare
    const tenant = await newTenant();
    const refs = [unique('R'), unique('R'), unique('R')];
    // Act
    const first = await importListings(tenant, feed(refs), 'feed.json');
    const again = await importListings(tenant, feed(refs), 'feed.json');
    const changed = await importListings(
      tenant,
      feed(refs).map((item, i) => (i === 0 ? { ...item, price: '125000', bedrooms: 3 } : item)),
      'feed-2.json',
    );
    // Assess
    expect(first).toEqual({ total: 3, created: 3, updated: 0, skipped: 0, failed: 0, failures: [] });
    expect(again).toEqual({ total: 3, created: 0, updated: 0, skipped: 3, failed: 0, failures: [] });
    expect(changed).toEqual({ total: 3, created: 0, updated: 1, skipped: 2, failed: 0, failures: [] });
    const listing = await byRef(tenant, refs[0]!);
    expect(listing).toMatchObject({
      origin: 'import',
      internalRef: refs[0],
      title: 'Imported flat 0',
      price: '125000',
      bedrooms: 3,
      placeCode,
      createdBy: 'import:feed.json',
      updatedBy: 'import:feed-2.json',
    });
    expect(listing.priceHistory).toEqual([
      expect.objectContaining({ price: '100000', currency: 'EUR', changed_by: 'import:feed.json' }),
      expect.objectContaining({ price: '125000', currency: 'EUR', changed_by: 'import:feed-2.json' }),
    ]);
    expect((await queryAllListings(tenant.tenantId)).length).toBe(3);
  });

  it('leaves the fields a key edited alone on later imports (manual edit wins), and updates the rest', async () => {
    // Prepare
    const tenant = await newTenant();
    const ref = unique('R');
    await importListings(tenant, feed([ref]), 'feed.json');
    const imported = await byRef(tenant, ref);
    await editListing(keyWriter(tenant), imported.id, { price: '99000', description: null }, undefined);
    // Act
    const summary = await importListings(
      tenant,
      feed([ref], { price: '150000', description: 'Feed text', bedrooms: 5, title: 'Feed title' }),
      'feed.json',
    );
    const unchanged = await importListings(
      tenant,
      feed([ref], { price: '175000', description: 'Other feed text', bedrooms: 5, title: 'Feed title' }),
      'feed.json',
    );
    // Assess
    expect(summary).toMatchObject({ updated: 1, failed: 0 });
    expect(unchanged).toMatchObject({ skipped: 1, updated: 0 });
    const after = await byRef(tenant, ref);
    expect(after.manualFields).toEqual(expect.arrayContaining(['price', 'description']));
    expect(after.price).toBe('99000');
    expect(after.description).toBeUndefined();
    expect(after.bedrooms).toBe(5);
    expect(after.title).toBe('Feed title');
    expect(after.origin).toBe('import');
  });

  it('reports an item without internal_ref or with a bad field and imports the rest', async () => {
    // Prepare
    const tenant = await newTenant();
    const [good1, bad1, bad2, good2] = [unique('R'), unique('R'), unique('R'), unique('R')];
    const items: unknown[] = [
      ...feed([good1]),
      { title: 'No reference', place_code: placeCode },
      ...feed([bad1], { bedrooms: -1 }),
      ...feed([bad2], { place_code: 'NO-SUCH-PLACE' }),
      null,
      ...feed([good2]),
    ];
    // Act
    const summary = await importListings(tenant, items, 'feed.json');
    // Assess
    expect(summary).toMatchObject({ total: 6, created: 2, updated: 0, skipped: 0, failed: 4 });
    expect(summary.failures.map((f) => [f.index, f.internal_ref])).toEqual([
      [1, null],
      [2, bad1],
      [3, bad2],
      [4, null],
    ]);
    expect(summary.failures[0]?.error).toMatch(/internal_ref/);
    expect(summary.failures[1]?.error).toMatch(/bedrooms/);
    expect(summary.failures[2]?.error).toMatch(/place_code/);
    const all = await queryAllListings(tenant.tenantId);
    expect(all.map((p) => p.internalRef).sort()).toEqual([good1, good2].sort());
    expect(await findListingClaim(tenant.tenantId, 'property-ref', bad1)).toBeUndefined();
  });

  it('resolves agent_email in a feed and reports an unknown Agent', async () => {
    // Prepare
    const tenant = await newTenant();
    const agent = await createTestAgent(tenant.tenantId);
    const [known, unknown] = [unique('R'), unique('R')];
    // Act
    const summary = await importListings(
      tenant,
      [
        ...feed([known], { agent_email: agent.email }),
        ...feed([unknown], { agent_email: 'nobody@example.com' }),
      ],
      'feed.json',
    );
    // Assess
    expect(summary).toMatchObject({ created: 1, failed: 1 });
    expect(summary.failures[0]).toMatchObject({ index: 1, internal_ref: unknown });
    expect((await byRef(tenant, known)).agentId).toBe(agent.id);
  });

  it('reports progress after each item, failed ones included', async () => {
    // Prepare
    const tenant = await newTenant();
    const items = Array.from({ length: 3 }, () => ({ title: 'no ref' }));
    const reports: [number, number][] = [];
    // Act
    const summary = await importListings(tenant, items, 'big.json', (done, total) =>
      reports.push([done, total]),
    );
    // Assess
    expect(summary.failed).toBe(3);
    expect(reports).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });
});

describe('importListings: the resume', () => {
  it('writes the Area memberships of an item an earlier run wrote but failed after (reported failed)', async () => {
    // Prepare: an Area over the feed's Place; a run whose write landed but whose memberships did not
    const tenant = await newTenant();
    const { area } = await createArea({
      tenantId: tenant.tenantId,
      kind: 'zone',
      name: 'Feed zone',
      placeCodes: [placeCode],
    });
    const refs = [unique('R')];
    await importListings(tenant, feed(refs), 'feed.json');
    const listing = await byRef(tenant, refs[0] as string);
    await removeMemberships(tenant.tenantId, listing.id, [area.id]);
    // Act: the feed again (the resume)
    const resumed = await importListings(tenant, feed(refs), 'feed.json');
    // Assess: nothing to change on the listing, and its membership is back
    expect(resumed).toMatchObject({ skipped: 1, failed: 0 });
    expect((await membershipsOfListing(tenant.tenantId, listing.id)).map((m) => m.areaId)).toEqual([area.id]);
  });
});

describe('importListings under throttling', () => {
  /** Short pauses: the test is about the retries and the report, not about waiting. */
  const quickRetry = { attempts: 12, baseMs: 1, capMs: 20 };

  it('completes an import of a few hundred items while a tenth of its calls are throttled past the SDK retries, reporting per item', async () => {
    // Prepare
    const tenant = await newTenant();
    const refs = Array.from({ length: 200 }, () => unique('T'));
    const items: unknown[] = feed(refs);
    items[100] = { title: 'No reference', place_code: placeCode };
    // Act
    const summary = await withDynamoFaults({ throttleRate: 0.1, throttlePastRetries: true }, () =>
      importListings(tenant, items, 'hot.json', undefined, { retry: quickRetry }),
    );
    // Assess
    expect(summary.total).toBe(200);
    expect(summary.created + summary.updated + summary.skipped + summary.failed).toBe(200);
    expect(summary.failures.length).toBe(summary.failed);
    expect(summary.failures).toContainEqual(expect.objectContaining({ index: 100, internal_ref: null }));
    // Twelve attempts of an item all throttled is rare (an attempt makes several calls: about 1 in
    // 10⁴ items), but reported if so.
    const throttled = summary.failures.filter((f) => f.index !== 100);
    for (const failure of throttled) expect(failure.error).toMatch(/throttl|throughput/i);
    expect(summary.created).toBe(199 - throttled.length);
    const failedRefs = new Set(throttled.map((f) => f.internal_ref));
    const storedRefs = new Set((await queryAllListings(tenant.tenantId)).map((p) => p.internalRef));
    // Every item not reported failed is stored. One reported failed may be stored too: an attempt
    // may land its write and be throttled after it, on the Area memberships, and every later attempt
    // too; the report says failed and a re-run (the resume) completes it.
    expect(refs.filter((ref, i) => i !== 100 && !failedRefs.has(ref) && !storedRefs.has(ref))).toEqual([]);
    expect([...storedRefs].filter((ref) => !refs.includes(ref as string))).toEqual([]);
    expect(storedRefs.size).toBeGreaterThanOrEqual(199 - throttled.length);
    expect(storedRefs.size).toBeLessThanOrEqual(199);
  }, 300_000);

  it('reports each item still throttled after its attempts and goes on; a re-run is the resume (by internal_ref)', async () => {
    // Prepare: the first third imported by an earlier run
    const tenant = await newTenant();
    const refs = Array.from({ length: 30 }, () => unique('T'));
    await importListings(tenant, feed(refs.slice(0, 10)), 'feed.json');
    const reports: number[] = [];
    // Act: every attempt of every call throttled, then the same feed again once the table is calm
    const throttled = await withDynamoFaults({ throttleRate: 1, throttlePastRetries: true }, () =>
      importListings(tenant, feed(refs), 'feed.json', (done) => reports.push(done), {
        retry: { attempts: 2, baseMs: 1, capMs: 2 },
      }),
    );
    const resumed = await importListings(tenant, feed(refs), 'feed.json');
    // Assess
    expect(reports).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(throttled).toMatchObject({ total: 30, created: 0, updated: 0, skipped: 0, failed: 30 });
    expect(throttled.failures.map((f) => f.internal_ref)).toEqual(refs);
    expect(throttled.failures[0]?.error).toMatch(/throttl|throughput/i);
    expect(resumed).toMatchObject({ total: 30, created: 20, skipped: 10, updated: 0, failed: 0 });
    const stored = await queryAllListings(tenant.tenantId);
    expect(stored.map((p) => p.internalRef).sort()).toEqual([...refs].sort());
  });
});
