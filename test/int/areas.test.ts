import { beforeAll, describe, expect, it } from 'vitest';
import type { PropertyCreateInput } from '../../functions/contract/properties.ts';
import { membershipsOfListing } from '../../functions/data/areas.ts';
import { getTenant } from '../../functions/data/tenants.ts';
import { NotFoundError } from '../../functions/kernel/errors.ts';
import {
  createArea,
  recomputeArea,
  recomputeAreas,
  setManualMembership,
} from '../../functions/services/areas.ts';
import {
  createListing,
  editListing,
  type ListingWriter,
  readListing,
} from '../../functions/services/listings.ts';
import { AdminInputError, createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

type Places = Awaited<ReturnType<typeof createTestPlaces>>;
let coast: Places;
let inland: Places;

beforeAll(async () => {
  [coast, inland] = await Promise.all([createTestPlaces(), createTestPlaces()]);
});

async function newWriter(): Promise<ListingWriter> {
  const created = await createTenantFromAdmin({ slug: unique('area'), name: 'Area Realty' });
  return { tenant: (await getTenant(created.tenantId))!, name: 'int-key', via: 'api' };
}

const create = async (w: ListingWriter, input: PropertyCreateInput) =>
  (await createListing(w, { ai_enrichment: false, ...input }, undefined)).record;

/** The listing's Area memberships, as { areaId: via }. */
async function memberships(w: ListingWriter, propertyId: string): Promise<Record<string, string>> {
  const list = await membershipsOfListing(w.tenant.tenantId, propertyId);
  return Object.fromEntries(list.map((m) => [m.areaId, m.via]));
}

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('createArea', () => {
  it('puts existing listings under its Places in it by rule, and leaves the others out', async () => {
    // Prepare
    const w = await newWriter();
    const inTown = await create(w, { title: 'In town', place_code: coast.town.code });
    const elsewhere = await create(w, { title: 'Elsewhere', place_code: inland.town.code });
    const unplaced = await create(w, { title: 'No place' });
    // Act
    const { area, added } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'region',
      name: 'The Coast',
      placeCodes: [coast.region.code],
    });
    // Assess
    expect(added).toBe(1);
    expect(await memberships(w, inTown.id)).toEqual({ [area.id]: 'rule' });
    expect(await memberships(w, elsewhere.id)).toEqual({});
    expect(await memberships(w, unplaced.id)).toEqual({});
    const { areas } = await readListing(w.tenant.tenantId, inTown.id);
    expect(areas).toEqual([
      expect.objectContaining({ areaId: area.id, areaKind: 'region', areaName: 'The Coast', via: 'rule' }),
    ]);
  });

  it('puts a listing created or moved under its Places in it, and takes one moved away out', async () => {
    // Prepare
    const w = await newWriter();
    const { area } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'zone',
      name: 'Seatown',
      placeCodes: [coast.town.code],
    });
    // Act
    const born = await create(w, { title: 'Born inside', place_code: coast.town.code });
    const movedIn = await create(w, { title: 'Moves in', place_code: inland.town.code });
    await editListing(w, movedIn.id, { place_code: coast.town.code }, undefined);
    const bornMembers = await memberships(w, born.id);
    await editListing(w, born.id, { place_code: inland.region.code }, undefined);
    // Assess
    expect(bornMembers).toEqual({ [area.id]: 'rule' });
    expect(await memberships(w, movedIn.id)).toEqual({ [area.id]: 'rule' });
    expect(await memberships(w, born.id)).toEqual({});
  });

  it('refuses an unknown kind, an empty name and an unknown Place', async () => {
    // Prepare
    const w = await newWriter();
    const base = { tenantId: w.tenant.tenantId, kind: 'region', name: 'X', placeCodes: [] as string[] };
    // Act
    const errors = await Promise.all([
      failure(createArea({ ...base, kind: 'city' })),
      failure(createArea({ ...base, name: '  ' })),
      failure(createArea({ ...base, placeCodes: ['NO-SUCH-PLACE'] })),
    ]);
    // Assess
    for (const error of errors) expect(error).toBeInstanceOf(AdminInputError);
  });
});

describe('community Areas', () => {
  it('refuse a rule and take manual members only, which a recompute keeps', async () => {
    // Prepare
    const w = await newWriter();
    const listing = await create(w, { title: 'Gated', place_code: coast.town.code });
    // Act
    const withPlaces = await failure(
      createArea({
        tenantId: w.tenant.tenantId,
        kind: 'community',
        name: 'Club',
        placeCodes: [coast.town.code],
      }),
    );
    const { area, added } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'community',
      name: 'Club',
      placeCodes: [],
    });
    const before = await memberships(w, listing.id);
    await setManualMembership(w.tenant.tenantId, area.id, listing.id, 'manual');
    await recomputeAreas(w.tenant.tenantId);
    // Assess
    expect(withPlaces).toBeInstanceOf(AdminInputError);
    expect((withPlaces as Error).message).toMatch(/manual/);
    expect(added).toBe(0);
    expect(before).toEqual({});
    expect(await memberships(w, listing.id)).toEqual({ [area.id]: 'manual' });
  });
});

describe('manual and excluded memberships', () => {
  it('keeps an excluded listing out through an Area recompute and through its own place change', async () => {
    // Prepare
    const w = await newWriter();
    const listing = await create(w, { title: 'Excluded one', place_code: coast.town.code });
    const { area } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'region',
      name: 'Coast',
      placeCodes: [coast.region.code],
    });
    expect(await memberships(w, listing.id)).toEqual({ [area.id]: 'rule' });
    // Act
    const excluded = await setManualMembership(w.tenant.tenantId, area.id, listing.id, 'excluded');
    const all = await recomputeAreas(w.tenant.tenantId);
    const one = await recomputeAreas(w.tenant.tenantId, area.id);
    await editListing(w, listing.id, { place_code: coast.region.code }, undefined);
    // Assess
    expect(excluded).toEqual({ area_id: area.id, property_id: listing.id, via: 'excluded' });
    expect(all).toEqual({ areas: 1, results: [{ area_id: area.id, added: 0, removed: 0 }] });
    expect(one.results).toEqual([{ area_id: area.id, added: 0, removed: 0 }]);
    expect(await memberships(w, listing.id)).toEqual({ [area.id]: 'excluded' });
    const { areas } = await readListing(w.tenant.tenantId, listing.id);
    expect(areas.map((a) => a.via)).toEqual(['excluded']);
  });

  it('keeps a manual member outside the rule through recomputes and place changes', async () => {
    // Prepare
    const w = await newWriter();
    const outside = await create(w, { title: 'Added by hand', place_code: inland.town.code });
    const { area } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'neighborhood',
      name: 'Old Town',
      placeCodes: [coast.town.code],
    });
    // Act
    await setManualMembership(w.tenant.tenantId, area.id, outside.id, 'manual');
    const recomputed = await recomputeArea(w.tenant.tenantId, area.id);
    await editListing(w, outside.id, { place_code: inland.region.code }, undefined);
    await editListing(w, outside.id, { place_code: null }, undefined);
    // Assess
    expect(recomputed).toEqual({ added: 0, removed: 0 });
    expect(await memberships(w, outside.id)).toEqual({ [area.id]: 'manual' });
  });

  it('lets a person put an excluded listing back by hand', async () => {
    // Prepare
    const w = await newWriter();
    const listing = await create(w, { title: 'Back in', place_code: coast.town.code });
    const { area } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'zone',
      name: 'Z',
      placeCodes: [coast.town.code],
    });
    await setManualMembership(w.tenant.tenantId, area.id, listing.id, 'excluded');
    // Act
    await setManualMembership(w.tenant.tenantId, area.id, listing.id, 'manual');
    await recomputeAreas(w.tenant.tenantId);
    // Assess
    expect(await memberships(w, listing.id)).toEqual({ [area.id]: 'manual' });
  });

  it('answers NotFound for an unknown Area or listing, or one of another Tenant', async () => {
    // Prepare
    const w = await newWriter();
    const other = await newWriter();
    const listing = await create(w, { title: 'Mine' });
    const theirs = await create(other, { title: 'Theirs' });
    const { area } = await createArea({
      tenantId: w.tenant.tenantId,
      kind: 'zone',
      name: 'Z',
      placeCodes: [],
    });
    // Act
    const errors = await Promise.all([
      failure(setManualMembership(w.tenant.tenantId, crypto.randomUUID(), listing.id, 'manual')),
      failure(setManualMembership(w.tenant.tenantId, area.id, crypto.randomUUID(), 'manual')),
      failure(setManualMembership(w.tenant.tenantId, area.id, theirs.id, 'manual')),
      failure(setManualMembership(other.tenant.tenantId, area.id, theirs.id, 'manual')),
      failure(recomputeAreas(w.tenant.tenantId, crypto.randomUUID())),
    ]);
    // Assess
    for (const error of errors) expect(error).toBeInstanceOf(NotFoundError);
  });
});
