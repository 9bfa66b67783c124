import type { EntityItem } from 'electrodb';
import type { AreaVia } from '../domain/areas.ts';
import { ConflictError } from '../kernel/errors.ts';
import { itemsOfKeys, untilProcessed } from './batch.ts';
import { Area } from './entities/area.ts';
import { AreaMembership } from './entities/area-membership.ts';
import { Listing } from './entities/listing.ts';
import { isConditionalFailure } from './errors.ts';
import { getListingWithAreas, type ListingRecord } from './listings.ts';

export type AreaRecord = EntityItem<typeof Area>;
export type AreaMembershipRecord = EntityItem<typeof AreaMembership>;

export async function insertArea(record: AreaRecord): Promise<AreaRecord> {
  await Area.create(record).go();
  return record;
}

/** An Area by id, strongly consistent (see getLead). */
export async function getArea(tenantId: string, id: string): Promise<AreaRecord | undefined> {
  const { data } = await Area.get({ tenantId, id }).go({ consistent: true });
  return data ?? undefined;
}

/**
 * The Areas of the Tenant among `ids`, by id: one consistent BatchGetItem (criteria name at most 50),
 * so an Area made a moment ago is known to the write that names it; the Tenant index is not read.
 */
export async function getAreas(tenantId: string, ids: readonly string[]): Promise<Map<string, AreaRecord>> {
  const found = new Map<string, AreaRecord>();
  await untilProcessed('getAreas', [...new Set(ids)], async (pending) => {
    const { data, unprocessed } = await Area.get(pending.map((id) => ({ tenantId, id }))).go({
      consistent: true,
    });
    for (const area of data) found.set(area.id, area);
    return unprocessed.map((k) => k.id);
  });
  return found;
}

/** Every Area of a Tenant (a Tenant has tens, not thousands: one or two pages). */
export async function listAreas(tenantId: string): Promise<AreaRecord[]> {
  const { data } = await Area.query.byTenant({ tenantId }).go({ pages: 'all' });
  return data;
}

/**
 * A listing's Area memberships: one Query of its own partition, strongly consistent, as a recompute
 * plans its adds and removals from it (a membership written a moment ago must be seen).
 */
export async function membershipsOfListing(
  tenantId: string,
  propertyId: string,
): Promise<AreaMembershipRecord[]> {
  const { data } = await AreaMembership.query
    .byListing({ tenantId, propertyId })
    .go({ pages: 'all', consistent: true });
  return data;
}

export async function membersOfArea(tenantId: string, areaId: string): Promise<AreaMembershipRecord[]> {
  const { data } = await AreaMembership.query.byArea({ tenantId, areaId }).go({ pages: 'all' });
  return data;
}

type AreaLabel = Pick<AreaRecord, 'id' | 'kind' | 'name'>;

/** Concurrent rewrites of one listing's copy that may each lose the race before one gives up. */
const COPY_ATTEMPTS = 5;

/**
 * Rewrites the listing's copy of its memberships (entities/listing.ts `areaMemberships`) from a
 * strongly consistent read of the listing and its memberships, only over the copy version that read
 * saw: a writer whose read predates another's membership change loses the race and reads again, so
 * the last copy written holds every membership written before it. A listing that no longer exists
 * has nothing to copy to. Called after every membership write below, and by `listing migrate`.
 */
export async function copyAreasToListing(tenantId: string, propertyId: string): Promise<void> {
  for (let attempt = 0; attempt < COPY_ATTEMPTS; attempt++) {
    const found = await getListingWithAreas(tenantId, propertyId, { consistent: true });
    if (!found) return;
    const version = found.property.areaMembershipsVersion;
    const copy = found.areas.map(({ areaId, areaKind, areaName, via, updatedAt }) => ({
      areaId,
      areaKind,
      areaName,
      via,
      updatedAt,
    }));
    try {
      await Listing.patch({ tenantId, id: propertyId })
        .set({ areaMemberships: copy, areaMembershipsVersion: (version ?? 0) + 1 })
        .where(({ areaMembershipsVersion }, { eq, notExists }) =>
          version === undefined ? notExists(areaMembershipsVersion) : eq(areaMembershipsVersion, version),
        )
        .go({ response: 'none' });
      return;
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
    }
  }
  throw new ConflictError(`The Areas of listing ${propertyId} are being changed concurrently; retry`);
}

/**
 * A listing's memberships as its copy holds them, or undefined for a listing stored before the copy
 * existed (its memberships are then read: {@link membershipsOfListing}).
 */
export function copiedMemberships(listing: ListingRecord): AreaMembershipRecord[] | undefined {
  return listing.areaMemberships?.map((m) => ({ ...m, tenantId: listing.tenantId, propertyId: listing.id }));
}

export async function setMembership(
  tenantId: string,
  propertyId: string,
  area: AreaLabel,
  via: AreaVia,
): Promise<void> {
  await AreaMembership.put({
    tenantId,
    propertyId,
    areaId: area.id,
    areaKind: area.kind,
    areaName: area.name,
    via,
    updatedAt: new Date().toISOString(),
  }).go();
  await copyAreasToListing(tenantId, propertyId);
}

export async function removeMemberships(
  tenantId: string,
  propertyId: string,
  areaIds: string[],
): Promise<void> {
  if (areaIds.length === 0) return;
  await untilProcessed('removeMemberships', areaIds, async (pending) => {
    const { unprocessed } = await AreaMembership.delete(
      pending.map((areaId) => ({ tenantId, propertyId, areaId })),
    ).go();
    return unprocessed.map((k) => k.areaId);
  });
  await copyAreasToListing(tenantId, propertyId);
}

export async function addRuleMemberships(
  tenantId: string,
  propertyId: string,
  areas: AreaLabel[],
): Promise<void> {
  if (areas.length === 0) return;
  const updatedAt = new Date().toISOString();
  await untilProcessed('addRuleMemberships', areas, async (pending) => {
    const { unprocessed } = await AreaMembership.put(
      pending.map((a) => ({
        tenantId,
        propertyId,
        areaId: a.id,
        areaKind: a.kind,
        areaName: a.name,
        via: 'rule' as const,
        updatedAt,
      })),
    ).go();
    return itemsOfKeys(pending, unprocessed, (a, k) => a.id === k.areaId);
  });
  await copyAreasToListing(tenantId, propertyId);
}
