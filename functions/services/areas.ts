import { randomUUID } from 'node:crypto';
import {
  type AreaRecord,
  addRuleMemberships,
  getArea,
  insertArea,
  listAreas,
  membershipsOfListing,
  membersOfArea,
  removeMemberships,
  setMembership,
} from '../data/areas.ts';
import { getListing, type ListingRecord, queryAllListings } from '../data/listings.ts';
import { getPlace } from '../data/places.ts';
import { AREA_KINDS, type AreaKind, type AreaVia, planMemberships } from '../domain/areas.ts';
import { NotFoundError } from '../kernel/errors.ts';
import { AdminInputError } from './tenants.ts';

const placePathCodes = (p: Pick<ListingRecord, 'placePath'>) => (p.placePath ?? []).map((e) => e.code);

export async function createArea(input: {
  tenantId: string;
  kind: string;
  name: string;
  placeCodes: string[];
}) {
  if (!(AREA_KINDS as readonly string[]).includes(input.kind)) {
    throw new AdminInputError(`--kind must be one of: ${AREA_KINDS.join(', ')}`);
  }
  const kind = input.kind as AreaKind;
  if (!input.name.trim()) throw new AdminInputError('--name must not be empty');
  if (kind === 'community' && input.placeCodes.length > 0) {
    throw new AdminInputError('A community Area has manual membership only: it takes no --places');
  }
  for (const code of input.placeCodes) {
    if (!(await getPlace(code))) throw new AdminInputError(`Unknown place code "${code}"`);
  }
  const now = new Date().toISOString();
  const area = await insertArea({
    tenantId: input.tenantId,
    id: randomUUID(),
    kind,
    name: input.name.trim(),
    placeCodes: [...new Set(input.placeCodes)],
    createdAt: now,
    updatedAt: now,
  });
  const recomputed = await recomputeArea(input.tenantId, area.id);
  return { area, ...recomputed };
}

async function requireArea(tenantId: string, areaId: string): Promise<AreaRecord> {
  const area = await getArea(tenantId, areaId);
  if (!area) throw new NotFoundError(`No Area ${areaId} in this tenant`);
  return area;
}

async function requireListing(tenantId: string, propertyId: string): Promise<ListingRecord> {
  const listing = await getListing(tenantId, propertyId);
  if (!listing) throw new NotFoundError(`No listing ${propertyId} in this tenant`);
  return listing;
}

/** A person puts a listing in an Area (or takes it out): a recompute never undoes either. */
export async function setManualMembership(
  tenantId: string,
  areaId: string,
  propertyId: string,
  via: Exclude<AreaVia, 'rule'>,
) {
  const area = await requireArea(tenantId, areaId);
  await requireListing(tenantId, propertyId);
  await setMembership(tenantId, propertyId, area, via);
  return { area_id: areaId, property_id: propertyId, via };
}

/** Recomputes one listing's rule memberships against every Area (after its Place changed). */
export async function recomputeListing(
  tenantId: string,
  listing: Pick<ListingRecord, 'id' | 'placePath'>,
  areas?: AreaRecord[],
) {
  const all = areas ?? (await listAreas(tenantId));
  const current = new Map((await membershipsOfListing(tenantId, listing.id)).map((m) => [m.areaId, m.via]));
  const plan = planMemberships(all, placePathCodes(listing), current);
  await addRuleMemberships(
    tenantId,
    listing.id,
    all.filter((a) => plan.add.includes(a.id)),
  );
  await removeMemberships(tenantId, listing.id, plan.remove);
  return plan;
}

/** Recomputes one Area's rule members over the Tenant's listings (after its rule changed). */
export async function recomputeArea(tenantId: string, areaId: string) {
  const area = await requireArea(tenantId, areaId);
  const members = new Map((await membersOfArea(tenantId, areaId)).map((m) => [m.propertyId, m.via]));
  let added = 0;
  let removed = 0;
  for (const listing of await queryAllListings(tenantId)) {
    const current = new Map<string, AreaVia>();
    const via = members.get(listing.id);
    if (via) current.set(areaId, via);
    const plan = planMemberships([area], placePathCodes(listing), current);
    if (plan.add.length) await addRuleMemberships(tenantId, listing.id, [area]);
    added += plan.add.length;
    members.delete(listing.id);
    if (plan.remove.length) {
      await removeMemberships(tenantId, listing.id, plan.remove);
      removed += plan.remove.length;
    }
  }
  return { added, removed };
}

/** `area recompute`: one Area, or every Area of the Tenant. */
export async function recomputeAreas(
  tenantId: string,
  areaId?: string,
  progress?: (done: number, total: number) => void,
) {
  const areas = areaId ? [await requireArea(tenantId, areaId)] : await listAreas(tenantId);
  const results = [];
  for (const [i, area] of areas.entries()) {
    results.push({ area_id: area.id, ...(await recomputeArea(tenantId, area.id)) });
    progress?.(i + 1, areas.length);
  }
  return { areas: results.length, results };
}

export function presentArea(a: AreaRecord) {
  return {
    id: a.id,
    kind: a.kind,
    name: a.name,
    place_codes: a.placeCodes,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}
