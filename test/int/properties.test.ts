import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PropertyCreateInput, PropertyUpdateInput } from '../../functions/contract/properties.ts';
import { UniqueClaim } from '../../functions/data/entities/unique-claim.ts';
import { getListing } from '../../functions/data/listings.ts';
import { ConflictError, NotFoundError, RequestValidationError } from '../../functions/kernel/errors.ts';
import type { Caller } from '../../functions/services/caller.ts';
import {
  archiveListing,
  createListing,
  editListing,
  listListings as listTenantListings,
  readListing,
  writerOf,
} from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { createTestPlaces, unique } from '../support/factories.ts';

// The listing service, called the way the handlers call it (as the caller's API key, no ?lang=).
const createProperty = async (c: Caller, input: PropertyCreateInput, now?: string) =>
  (await createListing(writerOf(c), input, undefined, now)).record;
const updateProperty = async (c: Caller, id: string, input: PropertyUpdateInput) =>
  (await editListing(writerOf(c), id, input, undefined)).record;
const archiveProperty = (c: Caller, id: string) => archiveListing(writerOf(c), id);
const getPropertyFor = async (c: Caller, id: string) => (await readListing(c.tenant.tenantId, id)).property;
const listListings = <O>(
  c: Caller,
  q: Parameters<typeof listTenantListings>[1],
  present: Parameters<typeof listTenantListings<O>>[2],
) => listTenantListings(c.tenant.tenantId, q, present);

/** A caller as the middleware would establish it, for a brand-new tenant. */
async function newCaller(keyName = 'int-key'): Promise<Caller> {
  const tenant = await createTenantFromAdmin({ slug: unique('int'), name: 'Int Realty' });
  return {
    tenant,
    apiKey: { id: randomUUID(), name: keyName, scopes: ['properties:write'], tenantId: tenant.tenantId },
  };
}

const claim = async (caller: Caller, kind: 'property-slug' | 'property-ref', value: string) =>
  (await UniqueClaim.get({ scope: `t#${caller.tenant.tenantId}`, kind, value }).go()).data;

/** The error a call rejects with (undefined if it resolves), caught at once so none goes unhandled. */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

let placeCode: string;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
});

describe('createProperty', () => {
  it('stores the listing with claims on its slug and internal_ref, attributed to the key', async () => {
    // Prepare
    const caller = await newCaller('crm-sync');
    const ref = unique('REF');
    // Act
    const created = await createProperty(caller, {
      title: 'Casa Blanca',
      internal_ref: ref,
      place_code: placeCode,
    });
    // Assess
    const stored = await getListing(caller.tenant.tenantId, created.id);
    expect(stored).toMatchObject({
      title: 'Casa Blanca',
      slug: 'casa-blanca',
      internalRef: ref,
      placeCode,
      origin: 'api',
      createdBy: 'crm-sync',
      updatedBy: 'crm-sync',
    });
    expect(stored?.archivedAt).toBeUndefined();
    expect(await claim(caller, 'property-slug', 'casa-blanca')).toMatchObject({
      ownerId: created.id,
      retired: false,
    });
    expect(await claim(caller, 'property-ref', ref)).toMatchObject({ ownerId: created.id });
  });

  it('does not store null fields and refuses an unknown place without writing anything', async () => {
    // Prepare
    const caller = await newCaller();
    // Act
    const created = await createProperty(caller, { title: 'Sparse', description: null, price: null });
    const refused = await failure(
      createProperty(caller, { title: 'Lost', place_code: 'NOT-A-PLACE', internal_ref: 'LOST-1' }),
    );
    // Assess
    const stored = await getListing(caller.tenant.tenantId, created.id);
    expect(stored && 'description' in stored).toBe(false);
    expect(stored && 'price' in stored).toBe(false);
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(await claim(caller, 'property-slug', 'lost')).toBeNull();
    expect(await claim(caller, 'property-ref', 'LOST-1')).toBeNull();
  });

  it('suffixes the slug of a repeated title and refuses a held internal_ref with ConflictError', async () => {
    // Prepare
    const caller = await newCaller();
    const first = await createProperty(caller, { title: 'Loft', internal_ref: 'R-1' });
    // Act
    const second = await createProperty(caller, { title: 'Loft' });
    const third = await createProperty(caller, { title: 'Loft' });
    const duplicate = await failure(createProperty(caller, { title: 'Other', internal_ref: 'R-1' }));
    // Assess
    expect([first.slug, second.slug]).toEqual(['loft', 'loft-2']);
    expect(third.slug).toBe(`loft-${third.id.slice(0, 8)}`); // a third try takes the id, not -3
    expect(duplicate).toBeInstanceOf(ConflictError);
    expect(await claim(caller, 'property-slug', 'other')).toBeNull();
    const page = await listListings(caller, { limit: 10, include_archived: true }, (p) => p.title);
    expect(page.data.sort()).toEqual(['Loft', 'Loft', 'Loft']);
  });
});

describe('updateProperty', () => {
  it('claims a new slug on a title change and keeps the old one as a retired claim', async () => {
    // Prepare
    const caller = await newCaller();
    const created = await createProperty(caller, { title: 'Old Mill' });
    // Act
    const renamed = await updateProperty(caller, created.id, { title: 'New Mill' });
    const newcomer = await createProperty(caller, { title: 'Old Mill' });
    // Assess
    expect(renamed.slug).toBe('new-mill');
    expect(await claim(caller, 'property-slug', 'new-mill')).toMatchObject({
      ownerId: created.id,
      retired: false,
    });
    expect(await claim(caller, 'property-slug', 'old-mill')).toMatchObject({
      ownerId: created.id,
      retired: true,
    });
    expect(newcomer.slug).toBe('old-mill-2');
  });

  it('keeps the slug when the title changes to one with the same slug', async () => {
    // Prepare
    const caller = await newCaller();
    const created = await createProperty(caller, { title: 'Blue House' });
    // Act
    const updated = await updateProperty(caller, created.id, { title: 'BLUE house!' });
    // Assess
    expect(updated.title).toBe('BLUE house!');
    expect(updated.slug).toBe('blue-house');
    expect(await claim(caller, 'property-slug', 'blue-house')).toMatchObject({
      ownerId: created.id,
      retired: false,
    });
  });

  it('moves the internal_ref claim: the old value is freed, the new one held, null removes it', async () => {
    // Prepare
    const caller = await newCaller();
    const created = await createProperty(caller, { title: 'Ref mover', internal_ref: 'A-1' });
    // Act
    await updateProperty(caller, created.id, { internal_ref: 'A-2' });
    const afterMove = {
      a1: await claim(caller, 'property-ref', 'A-1'),
      a2: await claim(caller, 'property-ref', 'A-2'),
    };
    const cleared = await updateProperty(caller, created.id, { internal_ref: null });
    // Assess
    expect(afterMove.a1).toBeNull();
    expect(afterMove.a2).toMatchObject({ ownerId: created.id });
    expect(cleared.internalRef).toBeUndefined();
    expect(await claim(caller, 'property-ref', 'A-2')).toBeNull();
  });

  it('refuses a ref held by another listing and leaves both listings and claims as they were', async () => {
    // Prepare
    const caller = await newCaller();
    const holder = await createProperty(caller, { title: 'Holder', internal_ref: 'H-1' });
    const other = await createProperty(caller, { title: 'Other', internal_ref: 'O-1' });
    // Act
    const attempt = await failure(
      updateProperty(caller, other.id, { internal_ref: 'H-1', title: 'Renamed' }),
    );
    // Assess
    expect(attempt).toBeInstanceOf(ConflictError);
    expect(await getListing(caller.tenant.tenantId, other.id)).toEqual(other);
    expect(await claim(caller, 'property-ref', 'H-1')).toMatchObject({ ownerId: holder.id });
    expect(await claim(caller, 'property-ref', 'O-1')).toMatchObject({ ownerId: other.id });
    expect(await claim(caller, 'property-slug', 'renamed')).toBeNull();
  });

  it('applies concurrent edits of different fields without losing either', async () => {
    // Prepare
    const caller = await newCaller('editor');
    const created = await createProperty(caller, { title: 'Busy listing' });
    // Act
    const results = await Promise.all([
      updateProperty(caller, created.id, { description: 'Sunny' }),
      updateProperty(caller, created.id, { price: '100000', currency: 'EUR' }),
      updateProperty(caller, created.id, { bedrooms: 2 }),
    ]);
    // Assess: each answer already holds its own edit (it may also show a concurrent one)
    expect(results[0]).toMatchObject({ description: 'Sunny' });
    expect(results[1]).toMatchObject({ price: '100000', currency: 'EUR' });
    expect(results[2]).toMatchObject({ bedrooms: 2 });
    for (const r of results) expect(r.updatedAt > created.updatedAt).toBe(true);
    const stored = await getListing(caller.tenant.tenantId, created.id);
    expect(stored).toMatchObject({
      description: 'Sunny',
      price: '100000',
      currency: 'EUR',
      bedrooms: 2,
      updatedBy: 'editor',
    });
    expect(stored?.updatedAt).toBe(
      results
        .map((r) => r.updatedAt)
        .sort()
        .at(-1),
    );
  });

  it('moves updatedAt forward on every edit, even within one millisecond', async () => {
    // Prepare
    const caller = await newCaller();
    const created = await createProperty(caller, { title: 'Quick edits' }, '2999-01-01T00:00:00.000Z');
    // Act
    const first = await updateProperty(caller, created.id, { bedrooms: 1 });
    const second = await updateProperty(caller, created.id, { bedrooms: 2 });
    // Assess: a clock behind the stored stamp still yields strictly increasing stamps
    expect(first.updatedAt).toBe('2999-01-01T00:00:00.001Z');
    expect(second.updatedAt).toBe('2999-01-01T00:00:00.002Z');
    expect(second.createdAt).toBe('2999-01-01T00:00:00.000Z');
  });

  it('answers NotFoundError for a listing of another tenant', async () => {
    // Prepare
    const owner = await newCaller();
    const stranger = await newCaller();
    const created = await createProperty(owner, { title: 'Mine' });
    // Act
    const read = await failure(getPropertyFor(stranger, created.id));
    const edit = await failure(updateProperty(stranger, created.id, { title: 'Yours now' }));
    const archive = await failure(archiveProperty(stranger, created.id));
    // Assess
    expect(read).toBeInstanceOf(NotFoundError);
    expect(edit).toBeInstanceOf(NotFoundError);
    expect(archive).toBeInstanceOf(NotFoundError);
    expect(await getListing(owner.tenant.tenantId, created.id)).toEqual(created);
  });
});

describe('archiveProperty', () => {
  it('sets archivedAt once, keeps slug and claims, and leaves the default list', async () => {
    // Prepare
    const caller = await newCaller('archiver');
    const created = await createProperty(caller, {
      title: 'Gone Villa',
      internal_ref: 'G-1',
      place_code: placeCode,
    });
    // Act
    await archiveProperty(caller, created.id);
    const first = await getListing(caller.tenant.tenantId, created.id);
    await archiveProperty(caller, created.id);
    const second = await getListing(caller.tenant.tenantId, created.id);
    // Assess
    expect(first).toMatchObject({ slug: 'gone-villa', placeCode, updatedBy: 'archiver' });
    expect(first?.archivedAt).toBe(first?.updatedAt);
    expect(second).toEqual(first);
    expect(await claim(caller, 'property-slug', 'gone-villa')).toMatchObject({ ownerId: created.id });
    const live = await listListings(caller, { limit: 10, include_archived: false }, (p) => p.id);
    const all = await listListings(caller, { limit: 10, include_archived: true }, (p) => p.id);
    expect(live.data).toEqual([]);
    expect(all.data).toEqual([created.id]);
  });
});
