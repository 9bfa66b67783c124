/**
 * The persisted catalogue (the catalogue snapshot of docs/architecture.md) on DynamoDB Local and the local S3 (s3rver): the
 * snapshot's round trip, the fallbacks, the debounced rebuilds, matches from it, and the byte budget.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dueCatalogueRebuilds, markCatalogueRebuildDue } from '../../functions/data/catalogue-rebuilds.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { catalogueStore } from '../../functions/kernel/ports/catalogue-store.ts';
import type { Caller } from '../../functions/services/caller.ts';
import {
  rebuildCatalogueSnapshot,
  runDueCatalogueRebuilds,
} from '../../functions/services/catalogue-rebuild.ts';
import {
  CATALOGUE_SNAPSHOT_VERSION,
  forgetRebuildRequests,
  readSnapshot,
  writeSnapshot,
} from '../../functions/services/catalogue-snapshot.ts';
import { saveLeadCriteria } from '../../functions/services/lead-criteria.ts';
import { archiveListing, createListing, writerOf } from '../../functions/services/listings.ts';
import { listLeadMatches } from '../../functions/services/matches.ts';
import {
  catalogueStats,
  clearSiteCatalogues,
  siteCatalogue,
} from '../../functions/services/site-catalogue.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { catalogueRebuildRequest } from '../../functions/streams/reactions/catalogue-rebuild.ts';
import { handler as catalogueRebuildHandler } from '../../functions/workers/catalogue-rebuild.ts';
import { parseArgs } from '../../scripts/admin/args.ts';
import { commands } from '../../scripts/admin/commands.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { afterIndexLag, eventually } from '../support/eventually.ts';
import { createTestLead, createTestPlaces, unique } from '../support/factories.ts';

let placeCode: string;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
  clearSiteCatalogues();
});

async function newCaller(): Promise<Caller> {
  const tenant = await createTenantFromAdmin({ slug: unique('cat'), name: 'Catalogue Realty' });
  return {
    tenant,
    apiKey: { id: randomUUID(), name: 'int-key', scopes: ['properties:write'], tenantId: tenant.tenantId },
  };
}

async function addListing(caller: Caller, title: string, extra: Record<string, unknown> = {}) {
  const { record } = await createListing(
    writerOf(caller),
    {
      title,
      place_code: placeCode,
      listing_type: 'sale',
      price: '250000',
      currency: 'EUR',
      ai_enrichment: false,
      ...extra,
    },
    undefined,
  );
  return record;
}

/** A cold function's catalogue: forgets what this process holds, then loads the Tenant's. */
async function coldCatalogue(tenantId: string) {
  clearSiteCatalogues();
  const c = await siteCatalogue(tenantId);
  return { ids: new Set(c.listings.keys()), stats: catalogueStats() };
}

describe('catalogue snapshot', () => {
  it('is built from the table, compact, and loaded by a cold function, which then catches up', async () => {
    // Prepare
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const kept = await addListing(caller, 'Kept villa', { internal_ref: unique('REF') });
    const archived = await addListing(caller, 'Soon archived flat');
    await afterIndexLag();
    // Act: build from the table, then change the table after the snapshot.
    const built = await rebuildCatalogueSnapshot(tenantId, { fromTable: true });
    await archiveListing(writerOf(caller), archived.id);
    const added = await addListing(caller, 'Listed after the snapshot');
    // Assess: the stored snapshot holds what was live, without bookkeeping.
    expect(built).toMatchObject({ source: 'table', listings: 2 });
    const stored = await readSnapshot(tenantId);
    expect(stored?.snapshot.version).toBe(CATALOGUE_SNAPSHOT_VERSION);
    expect(stored?.snapshot.listings.map((l) => l.id).sort()).toEqual([kept.id, archived.id].sort());
    expect(stored?.snapshot.listings.find((l) => l.id === kept.id)).not.toHaveProperty('internalRef');
    expect(stored?.snapshot.watermark).toBe([kept.updatedAt, archived.updatedAt].sort().at(-1));
    // A cold function loads it (no table load) and the catch-up brings the later changes.
    const cold = await eventually(
      () => coldCatalogue(tenantId),
      ({ ids }) => ids.has(added.id) && !ids.has(archived.id),
    );
    expect([...cold.ids].sort()).toEqual([kept.id, added.id].sort());
    expect(cold.stats).toMatchObject({ snapshotLoads: 1, tableLoads: 0, snapshotReads: 1 });
  });

  it('is what a cold function serves: an entry only the snapshot holds is there', async () => {
    // Prepare: a snapshot that differs from the table (an entry the table never had).
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const real = await addListing(caller, 'Real listing');
    await afterIndexLag();
    const onlyInSnapshot = { ...real, id: randomUUID(), slug: 'only-in-snapshot' };
    await writeSnapshot({
      version: CATALOGUE_SNAPSHOT_VERSION,
      tenantId,
      watermark: real.updatedAt,
      builtAt: new Date().toISOString(),
      listings: [real, onlyInSnapshot],
    });
    // Act
    const cold = await coldCatalogue(tenantId);
    // Assess
    expect(cold.ids).toEqual(new Set([real.id, onlyInSnapshot.id]));
    expect(cold.stats.tableLoads).toBe(0);
  });

  it.each([
    ['missing', undefined],
    ['not gzip', Buffer.from('not a snapshot')],
    ['another version', gzipSync(JSON.stringify({ version: 99, tenantId: 'x', listings: [] }))],
  ])('falls back to the table when the snapshot is %s, and asks for a rebuild', async (_case, body) => {
    // Prepare
    forgetRebuildRequests();
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const listing = await addListing(caller, 'Listed without a snapshot');
    await afterIndexLag();
    if (body) await catalogueStore().write(tenantId, body);
    // Act
    const cold = await eventually(
      () => coldCatalogue(tenantId),
      ({ ids }) => ids.has(listing.id),
    );
    // Assess
    expect(cold.ids).toEqual(new Set([listing.id]));
    expect(cold.stats).toMatchObject({ snapshotLoads: 0, tableLoads: 1 });
    const due = await dueCatalogueRebuilds(new Date(Date.now() + 60_000).toISOString());
    expect(due).toContain(tenantId);
  });
});

describe('catalogue rebuilds', () => {
  it('many listing changes leave one marker, and the rebuilder rewrites the snapshot once', async () => {
    // Prepare
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const listings = await Promise.all(['One', 'Two', 'Three'].map((t) => addListing(caller, t)));
    await afterIndexLag();
    // Act: twenty changes, as twenty stream records seen by different containers.
    for (let i = 0; i < 20; i++) {
      forgetRebuildRequests();
      await catalogueRebuildRequest({
        eventId: `e${i}`,
        kind: 'MODIFY',
        entity: 'property',
        oldImage: undefined,
        newImage: { tenantId, id: listings[i % 3]?.id },
      });
    }
    const notYet = await runDueCatalogueRebuilds(new Date());
    const first = await runDueCatalogueRebuilds(new Date(Date.now() + 60_000));
    const second = await runDueCatalogueRebuilds(new Date(Date.now() + 60_000));
    // Assess
    expect(notYet.filter((r) => r.tenantId === tenantId)).toEqual([]);
    expect(first.filter((r) => r.tenantId === tenantId)).toEqual([
      expect.objectContaining({ tenantId, listings: 3, source: 'table' }),
    ]);
    expect(second.filter((r) => r.tenantId === tenantId)).toEqual([]);
    expect((await readSnapshot(tenantId))?.snapshot.listings).toHaveLength(3);
  });

  it('runs as its function: the scheduled handler rebuilds a Tenant whose marker is due', async () => {
    // Prepare
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const listing = await addListing(caller, 'Scheduled');
    await afterIndexLag();
    await markCatalogueRebuildDue(tenantId, new Date(Date.now() - 1_000).toISOString());
    // Act
    const result = await asFunction(WORKER_ENTRIES.catalogueRebuild, catalogueRebuildHandler)();
    // Assess
    expect(result.rebuilt).toBeGreaterThanOrEqual(1);
    expect((await readSnapshot(tenantId))?.snapshot.listings.map((l) => l.id)).toEqual([listing.id]);
    expect(await dueCatalogueRebuilds(new Date().toISOString())).not.toContain(tenantId);
  });

  it('a rebuild with a snapshot reads only the changes since it', async () => {
    // Prepare
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    await addListing(caller, 'Before');
    await afterIndexLag();
    await rebuildCatalogueSnapshot(tenantId, { fromTable: true });
    const after = await addListing(caller, 'After');
    await afterIndexLag();
    // Act
    const rebuilt = await rebuildCatalogueSnapshot(tenantId);
    // Assess
    expect(rebuilt).toMatchObject({ source: 'catch-up', listings: 2 });
    expect((await readSnapshot(tenantId))?.snapshot.listings.map((l) => l.id)).toContain(after.id);
  });
});

describe('catalogue rebuild (admin command)', () => {
  it("rewrites the Tenant's snapshot from the table, reporting its steps", async () => {
    // Prepare: a snapshot that lost a listing the table holds.
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    const listing = await addListing(caller, 'Missing from the snapshot');
    await afterIndexLag();
    await writeSnapshot({
      version: CATALOGUE_SNAPSHOT_VERSION,
      tenantId,
      watermark: listing.updatedAt,
      builtAt: new Date().toISOString(),
      listings: [],
    });
    const steps: string[] = [];
    const { flags } = parseArgs(['--tenant', caller.tenant.slug]);
    // Act
    const result = await commands['catalogue rebuild']?.run(flags, (label) => (done, total) => {
      steps.push(`${label} ${done}/${total}`);
    });
    // Assess
    expect(result).toMatchObject({ tenantId, source: 'table', listings: 1 });
    expect(steps).toEqual(['catalogue rebuild 1/3', 'catalogue rebuild 2/3', 'catalogue rebuild 3/3']);
    expect((await readSnapshot(tenantId))?.snapshot.listings.map((l) => l.id)).toEqual([listing.id]);
  });
});

describe('lead matches from the catalogue', () => {
  it('are the same from the table, from a snapshot, and warm', async () => {
    // Prepare
    const caller = await newCaller();
    const tenantId = caller.tenant.tenantId;
    await addListing(caller, 'Cheap', { price: '100000', bedrooms: 2 });
    await addListing(caller, 'Dear', { price: '900000', bedrooms: 4 });
    await addListing(caller, 'Rental', { listing_type: 'rent', rent_price: '1200' });
    const leadId = await createTestLead(tenantId);
    await saveLeadCriteria(tenantId, leadId, { listing_type: 'sale', max_price: '500000', currency: 'EUR' });
    await afterIndexLag();
    const ids = async () => (await listLeadMatches(tenantId, leadId)).map((m) => m.listing.id);
    // Act
    clearSiteCatalogues();
    const fromTable = await ids();
    await rebuildCatalogueSnapshot(tenantId, { fromTable: true });
    clearSiteCatalogues();
    const fromSnapshot = await ids();
    const warm = await ids();
    // Assess
    expect(fromTable).toHaveLength(1);
    expect(fromSnapshot).toEqual(fromTable);
    expect(warm).toEqual(fromTable);
    expect(catalogueStats()).toMatchObject({ snapshotLoads: 1, tableLoads: 0 });
  });
});

describe('catalogue memory', () => {
  it('keeps catalogues least recently used first within the byte budget', async () => {
    // Prepare: three Tenants; a budget of about one and a half of their catalogues.
    const callers = await Promise.all([newCaller(), newCaller(), newCaller()]);
    await Promise.all(callers.map((c) => addListing(c, 'A listing with some words')));
    await afterIndexLag();
    const [a, b, c] = callers.map((x) => x.tenant.tenantId) as [string, string, string];
    await siteCatalogue(a);
    const one = catalogueStats().bytes;
    clearSiteCatalogues();
    vi.stubEnv('AWS_LAMBDA_FUNCTION_MEMORY_SIZE', String((one * 1.5) / 0.4 / 1024 / 1024));
    resetConfig();
    // Act
    await siteCatalogue(a);
    await siteCatalogue(b);
    const afterB = catalogueStats();
    await siteCatalogue(b);
    await siteCatalogue(c);
    const afterC = catalogueStats();
    // Assess: each new Tenant pushed the least recently used one out; bytes stay within the budget.
    expect(afterB).toMatchObject({ held: 1, evictions: 1 });
    expect(afterC).toMatchObject({ held: 1, evictions: 2 });
    expect(afterC.bytes).toBeLessThanOrEqual(afterC.budgetBytes);
    expect(afterC.bytes).toBeGreaterThan(0);
  });
});
