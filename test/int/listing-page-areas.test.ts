/**
 * A page of `GET /v1/properties` reads its listings' Areas with the listings, not one Query per
 * listing: each listing item carries a copy of its Area memberships, rewritten after every
 * membership change, so a 50-listing page is one round trip (it was 51). Counted with the client's
 * meter (round trips), never timed.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyAreasToListing, membershipsOfListing } from '../../functions/data/areas.ts';
import { dynamo, metered, tableName } from '../../functions/data/client.ts';
import { Listing } from '../../functions/data/entities/listing.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { createArea, setManualMembership } from '../../functions/services/areas.ts';
import {
  createListing,
  type ListingWriter,
  listListings,
  migrateListings,
  readListing,
} from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

type Places = Awaited<ReturnType<typeof createTestPlaces>>;
let places: Places;
let tenant: TenantRecord;
let writer: ListingWriter;
const listingIds: string[] = [];
let areaIds: { coast: string; community: string; zone: string };

/** `id → [areaId:via, …]`, sorted, as a listing presents its Areas. */
type AreasById = Record<string, string[]>;
const labels = (areas: { areaId: string; via: string }[]) => areas.map((a) => `${a.areaId}:${a.via}`).sort();

async function listPage(limit: number) {
  const input = { limit, include_archived: false };
  return metered(() =>
    listListings(tenant.tenantId, input, (p, areas) => ({ id: p.id, areas: labels(areas) })),
  );
}

/** Every listing's Areas as the single read (its partition: the memberships themselves) shows them. */
async function singleReads(ids: readonly string[]): Promise<AreasById> {
  const reads = await Promise.all(ids.map((id) => readListing(tenant.tenantId, id)));
  return Object.fromEntries(reads.map((r) => [r.property.id, labels(r.areas)]));
}

beforeAll(async () => {
  places = await createTestPlaces();
  const created = await createTenantFromAdmin({ slug: unique('page-areas'), name: 'Page Areas Realty' });
  tenant = (await getTenant(created.tenantId))!;
  writer = { tenant, name: 'int-key', via: 'api' };
  const coast = await createArea({
    tenantId: tenant.tenantId,
    kind: 'region',
    name: 'The Coast',
    placeCodes: [places.region.code],
  });
  const zone = await createArea({
    tenantId: tenant.tenantId,
    kind: 'zone',
    name: 'Old Town',
    placeCodes: [places.town.code],
  });
  const community = await createArea({
    tenantId: tenant.tenantId,
    kind: 'community',
    name: 'Sea Club',
    placeCodes: [],
  });
  areaIds = { coast: coast.area.id, zone: zone.area.id, community: community.area.id };
  // 50 listings: two thirds in the town (two Areas by rule), the rest without a Place (none).
  for (let i = 0; i < 50; i++) {
    const input = {
      title: `Listing ${String(i).padStart(2, '0')}`,
      ai_enrichment: false,
      ...(i % 3 === 2 ? {} : { place_code: places.town.code }),
    };
    listingIds.push((await createListing(writer, input, undefined)).record.id);
  }
  // A person's decisions too: one listing put in the community, one taken out of the zone.
  await setManualMembership(tenant.tenantId, areaIds.community, listingIds[2] as string, 'manual');
  await setManualMembership(tenant.tenantId, areaIds.zone, listingIds[0] as string, 'excluded');
}, 120_000);

describe('a page of listings with their Areas', () => {
  it('is one round trip for 50 listings, each with the Areas its single read shows', async () => {
    // Act
    const { result, meter } = await listPage(50);

    // Assess
    expect(meter.roundTrips).toBe(1);
    expect(meter.operations).toEqual(['Query']);
    expect(result.data).toHaveLength(50);
    const listed = Object.fromEntries(result.data.map((p) => [p.id, p.areas]));
    expect(listed).toEqual(await singleReads(listingIds));
    expect(listed[listingIds[0] as string]).toEqual(
      [`${areaIds.coast}:rule`, `${areaIds.zone}:excluded`].sort(),
    );
    expect(listed[listingIds[2] as string]).toEqual([`${areaIds.community}:manual`]);
  });

  it('keeps every membership when a copy read before another change is written after it', async () => {
    // Prepare: a listing without Areas; the first copy write is held until a second change is done.
    const id = (await createListing(writer, { title: 'Contested', ai_enrichment: false }, undefined)).record
      .id;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    let heldSent: () => void = () => undefined;
    const heldReached = new Promise<void>((resolve) => {
      heldSent = resolve;
    });
    const name = 'holdFirstAreasCopy';
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const copy =
          context.commandName === 'UpdateItemCommand' &&
          JSON.stringify(args.input).includes('areaMemberships');
        if (copy && !held) {
          held = true;
          heldSent();
          await released;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );

    try {
      // Act: one person files it in the Coast (its copy, read with the Coast alone, is held); another
      // files it in the Sea Club meanwhile, copy and all; then the first copy goes out.
      const first = setManualMembership(tenant.tenantId, areaIds.coast, id, 'manual');
      await heldReached;
      await setManualMembership(tenant.tenantId, areaIds.community, id, 'manual');
      release();
      await first;
    } finally {
      dynamo().middlewareStack.remove(name);
    }

    // Assess: the copy holds both, as the memberships do.
    const { data } = await Listing.get({ tenantId: tenant.tenantId, id }).go({ consistent: true });
    expect(labels(data?.areaMemberships ?? [])).toEqual(
      labels(await membershipsOfListing(tenant.tenantId, id)),
    );
    expect(data?.areaMemberships).toHaveLength(2);
  });

  it('reads the memberships of a listing stored before the copy, until `listing migrate` writes it', async () => {
    // Prepare: two listings as stored before the copy existed (no copy on the item).
    const old = listingIds.slice(0, 2);
    for (const id of old) {
      const { Key } = Listing.get({ tenantId: tenant.tenantId, id }).params<{
        Key: Record<string, string>;
      }>();
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'REMOVE areaMemberships, areaMembershipsVersion',
        }),
      );
    }

    // Act
    const before = await listPage(50);
    await migrateListings(tenant.tenantId);
    const after = await listPage(50);

    // Assess: the same Areas either way; a Query each for the two old ones, then none.
    expect(before.meter.roundTrips).toBe(3);
    expect(before.result.data.map((p) => p.areas)).toEqual(after.result.data.map((p) => p.areas));
    expect(Object.fromEntries(after.result.data.map((p) => [p.id, p.areas]))).toMatchObject(
      await singleReads(old),
    );
    expect(after.meter.roundTrips).toBe(1);
  });

  it('rewrites nothing for a listing that is gone', async () => {
    // Act / Assess: no item is created for an unknown listing.
    await copyAreasToListing(tenant.tenantId, 'no-such-listing');
    const { data } = await Listing.get({ tenantId: tenant.tenantId, id: 'no-such-listing' }).go();
    expect(data).toBeNull();
  });
});
