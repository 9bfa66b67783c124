/**
 * importListings runs items concurrently. The real upsert runs; it is only
 * wrapped to observe which items are in flight at once, so the tests count, never time.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findListingClaim, getListing } from '../../functions/data/listings.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { IMPORT_CONCURRENCY, importListings } from '../../functions/services/listing-import.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { parseArgs, UsageError } from '../../scripts/admin/args.ts';
import { commands } from '../../scripts/admin/commands.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

/** Upserts in flight now, per internal_ref, and the most seen at once (all refs together). */
const inFlight = vi.hoisted(() => ({
  now: 0,
  most: 0,
  byRef: new Map<string, number>(),
  overlaps: [] as string[],
}));

vi.mock('../../functions/services/listings.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../functions/services/listings.ts')>();
  return {
    ...real,
    upsertListingByRef: async (...args: Parameters<typeof real.upsertListingByRef>) => {
      const ref = args[1];
      inFlight.now++;
      inFlight.most = Math.max(inFlight.most, inFlight.now);
      const ofRef = (inFlight.byRef.get(ref) ?? 0) + 1;
      inFlight.byRef.set(ref, ofRef);
      if (ofRef > 1) inFlight.overlaps.push(ref);
      try {
        return await real.upsertListingByRef(...args);
      } finally {
        inFlight.now--;
        inFlight.byRef.set(ref, (inFlight.byRef.get(ref) ?? 1) - 1);
      }
    },
  };
});

const resetInFlight = () => {
  inFlight.most = 0;
  inFlight.overlaps = [];
};

let placeCode: string;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
});

async function newTenant(): Promise<TenantRecord> {
  const created = await createTenantFromAdmin({
    slug: unique('impc'),
    name: 'Import Realty',
    languages: ['en'],
  });
  return (await getTenant(created.tenantId))!;
}

const item = (ref: string, over: Record<string, unknown> = {}) => ({
  internal_ref: ref,
  title: `Flat ${ref}`,
  price: '100000',
  currency: 'EUR',
  bedrooms: 2,
  place_code: placeCode,
  ai_enrichment: false,
  ...over,
});

describe('importListings: concurrency', () => {
  it('keeps at most `concurrency` items in flight, and fills them (the default too)', async () => {
    // Prepare
    const tenant = await newTenant();
    const feed = Array.from({ length: 3 * IMPORT_CONCURRENCY }, () => item(unique('C')));
    // Act
    resetInFlight();
    const three = await importListings(tenant, feed.slice(0, 12), 'feed.json', undefined, { concurrency: 3 });
    const mostOfThree = inFlight.most;
    resetInFlight();
    const byDefault = await importListings(tenant, feed, 'feed.json');
    const mostByDefault = inFlight.most;
    // Assess
    expect(three).toMatchObject({ total: 12, created: 12, failed: 0 });
    expect(mostOfThree).toBe(3);
    expect(byDefault).toMatchObject({
      total: feed.length,
      created: feed.length - 12,
      skipped: 12,
      failed: 0,
    });
    expect(mostByDefault).toBe(IMPORT_CONCURRENCY);
  });

  it('runs the items of one internal_ref one after the other in feed order: the last one’s values win', async () => {
    // Prepare: one ref three times among others, all units able to start at once
    const tenant = await newTenant();
    const [repeated, other1, other2] = [unique('D'), unique('D'), unique('D')];
    const feed = [
      item(repeated, { price: '100000' }),
      item(other1),
      item(repeated, { price: '110000', bedrooms: 3 }),
      item(other2),
      item(repeated, { price: '120000', bedrooms: 4 }),
    ];
    // Act
    resetInFlight();
    const summary = await importListings(tenant, feed, 'feed.json', undefined, { concurrency: 8 });
    // Assess: the same summary as one item at a time
    expect(summary).toEqual({ total: 5, created: 3, updated: 2, skipped: 0, failed: 0, failures: [] });
    expect(inFlight.overlaps).toEqual([]);
    const claim = await findListingClaim(tenant.tenantId, 'property-ref', repeated);
    const listing = await getListing(tenant.tenantId, claim!.ownerId);
    expect(listing).toMatchObject({ price: '120000', bedrooms: 4 });
    expect(listing?.priceHistory?.map((p: { price: string }) => p.price)).toEqual([
      '100000',
      '110000',
      '120000',
    ]);
  });

  it('lists failures in feed order although later items fail first', async () => {
    // Prepare: item 2 fails only after item 0 of its ref is written; items 1 and 3 fail at once
    const tenant = await newTenant();
    const ref = unique('F');
    const feed = [item(ref), { title: 'No reference' }, item(ref, { bedrooms: -1 }), null];
    // Act
    const summary = await importListings(tenant, feed, 'feed.json', undefined, { concurrency: 4 });
    // Assess
    expect(summary).toMatchObject({ total: 4, created: 1, failed: 3 });
    expect(summary.failures.map((f) => [f.index, f.internal_ref])).toEqual([
      [1, null],
      [2, ref],
      [3, null],
    ]);
    expect(summary.failures[1]?.error).toMatch(/bedrooms/);
  });

  it('refuses a concurrency that is not a positive integer (admin --concurrency and the option)', async () => {
    // Prepare
    const tenant = await newTenant();
    const run = (value: string) =>
      commands['listing import']!.run(
        parseArgs(['--tenant', tenant.slug, '--file', 'unused.json', '--concurrency', value]).flags,
        () => () => undefined,
      );
    // Act
    const refusals = await Promise.all(
      ['0', '-2', '1.5', 'many'].map((v) => run(v).catch((e: unknown) => e)),
    );
    const option = await importListings(tenant, [item(unique('Z'))], 'feed.json', undefined, {
      concurrency: 0,
    }).catch((e: unknown) => e);
    // Assess
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(UsageError);
      expect((refusal as Error).message).toBe('--concurrency must be an integer of at least 1');
    }
    expect(option).toBeInstanceOf(RangeError);
  });
});
