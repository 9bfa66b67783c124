import { beforeAll, describe, expect, it } from 'vitest';
import { findListingClaim, getListing, queryAllListings } from '../../functions/data/listings.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { importListings } from '../../functions/services/listing-import.ts';
import { editListing, type ListingWriter } from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
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
