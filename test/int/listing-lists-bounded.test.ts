/**
 * A listings list costs what it returns: archived listings in a list of their own, so `GET /v1/properties`
 * costs what it returns however many listings a Tenant archived before its live ones were last
 * touched; include_archived reads both lists; the catalogue's catch-up still sees an archival;
 * `listing migrate` re-files listings archived before the list existed.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamo, metered } from '../../functions/data/client.ts';
import { Listing } from '../../functions/data/entities/listing.ts';
import { getListing, queryListingsUpdatedSince } from '../../functions/data/listings.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { nextTimestamp } from '../../functions/data/timestamps.ts';
import {
  archiveListing,
  createListing,
  editListing,
  type ListingWriter,
  listListings,
  migrateListings,
} from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { unique } from '../support/factories.ts';

async function newTenant(): Promise<TenantRecord> {
  const created = await createTenantFromAdmin({ slug: unique('lists'), name: 'Archive Realty' });
  return (await getTenant(created.tenantId))!;
}

const writer = (tenant: TenantRecord): ListingWriter => ({ tenant, name: 'crm-key', via: 'api' });

async function addListing(tenant: TenantRecord, title: string) {
  const input = {
    title,
    listing_type: 'sale' as const,
    price: '250000',
    currency: 'EUR',
    ai_enrichment: false,
  };
  return (await createListing(writer(tenant), input, undefined)).record;
}

type ListInput = Parameters<typeof listListings>[1];
const titleOf = (p: { title: string }) => p.title;

/** One page of the listing list with what it cost. */
async function listPage(tenant: TenantRecord, fields: Partial<ListInput>) {
  const input: ListInput = { limit: 5, include_archived: false, ...fields };
  const { result, meter } = await metered(() => listListings(tenant.tenantId, input, titleOf));
  return { titles: result.data, cursor: result.next_cursor, itemsRead: meter.queryItemsRead };
}

/** Every page of a list, following next_cursor. */
async function allPages(tenant: TenantRecord, fields: Partial<ListInput>) {
  const pages: Awaited<ReturnType<typeof listPage>>[] = [];
  let cursor: string | undefined;
  do {
    const page = await listPage(tenant, { ...fields, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.cursor ?? undefined;
  } while (cursor && pages.length < 50);
  return pages;
}

describe('a listing list costs what it returns', () => {
  let tenant: TenantRecord;
  const archivedTitles = Array.from({ length: 30 }, (_, i) => `Archived ${String(i).padStart(2, '0')}`);
  const liveTitles = ['Live 0', 'Live 1', 'Live 2'];

  beforeAll(async () => {
    // Prepare: 30 listings archived before the 3 live ones were last touched, so in (updatedAt, id)
    // order every archived listing comes first.
    tenant = await newTenant();
    for (const title of archivedTitles) {
      const listing = await addListing(tenant, title);
      await archiveListing(writer(tenant), listing.id);
    }
    for (const title of liveTitles) await addListing(tenant, title);
    await afterIndexLag();
  }, 120_000);

  it('reads no archived listing for a page of live ones', async () => {
    // Act
    const page = await listPage(tenant, { limit: 2 });
    // Assess: one page and the extra item that tells another exists (30 more if it read the archive).
    expect(page.titles).toEqual(['Live 0', 'Live 1']);
    expect(page.cursor).not.toBeNull();
    expect(page.itemsRead).toBe(3);
  });

  it('include_archived reads both lists where they are, merged in order, each page bounded', async () => {
    // Act
    const pages = await allPages(tenant, { include_archived: true, limit: 10 });
    // Assess: each list is read up to one page and one item per request.
    expect(pages.flatMap((p) => p.titles)).toEqual([...archivedTitles, ...liveTitles]);
    for (const page of pages) expect(page.itemsRead).toBeLessThanOrEqual(2 * 11);
  });
});

describe('archiving moves a listing between the lists', () => {
  it('an archive files it in the archived list and an unarchive back in the live one; the catch-up sees both', async () => {
    // Prepare
    const tenant = await newTenant();
    await addListing(tenant, 'Kept');
    const moved = await addListing(tenant, 'Moved');
    const since = nextTimestamp();
    // Act
    await archiveListing(writer(tenant), moved.id);
    const archived = await getListing(tenant.tenantId, moved.id);
    await afterIndexLag();
    const liveWhileArchived = await listPage(tenant, {});
    const everything = await listPage(tenant, { include_archived: true });
    const caughtUp = await queryListingsUpdatedSince(tenant.tenantId, since);
    await editListing(writer(tenant), moved.id, { archived: false }, undefined);
    const unarchived = await getListing(tenant.tenantId, moved.id);
    await afterIndexLag();
    const liveAgain = await listPage(tenant, {});
    // Assess
    expect(archived?.listKey).toBe('archived-properties');
    expect(liveWhileArchived.titles).toEqual(['Kept']);
    expect(liveWhileArchived.itemsRead).toBe(1);
    expect(caughtUp.map((l) => [l.id, l.archivedAt !== undefined])).toEqual([[moved.id, true]]);
    expect(everything.titles).toEqual(['Kept', 'Moved']);
    expect(unarchived?.listKey).toBe('properties');
    expect(liveAgain.titles).toEqual(['Kept', 'Moved']);
  });
});

describe('listing migrate', () => {
  it('re-files listings archived before the archived list, their place in the lists unchanged', async () => {
    // Prepare: a listing archived as it was stored before (no listKey: filed in the live list).
    const tenant = await newTenant();
    const now = nextTimestamp();
    const { Item, TableName } = Listing.create({
      tenantId: tenant.tenantId,
      id: randomUUID(),
      title: 'Archived long ago',
      sourceLanguage: 'en',
      slug: `archived-long-ago-${randomUUID().slice(0, 8)}`,
      origin: 'api',
      createdBy: 'crm-key',
      updatedBy: 'crm-key',
      createdAt: now,
      updatedAt: now,
      archivedAt: now,
    }).params<{ Item: Record<string, unknown>; TableName: string }>();
    const { listKey: _dropped, ...legacy } = Item;
    await dynamo().send(
      new PutCommand({ TableName, Item: { ...legacy, gsi1pk: `t#${tenant.tenantId}#properties` } }),
    );
    await addListing(tenant, 'Live');
    await afterIndexLag();
    const before = await listPage(tenant, {});
    // Act
    const migration = await migrateListings(tenant.tenantId);
    const again = await migrateListings(tenant.tenantId);
    await afterIndexLag();
    const after = await listPage(tenant, {});
    const everything = await listPage(tenant, { include_archived: true });
    // Assess: before, the live list read the archived listing to leave it out; after, never.
    expect(before).toMatchObject({ titles: ['Live'], itemsRead: 2 });
    expect(migration).toEqual({ examined: 2, migrated: 1 });
    expect(again).toEqual({ examined: 2, migrated: 0 });
    expect(after).toMatchObject({ titles: ['Live'], itemsRead: 1 });
    expect(everything.titles).toEqual(['Archived long ago', 'Live']);
    const stored = await getListing(tenant.tenantId, String(legacy.id));
    expect(stored).toMatchObject({ listKey: 'archived-properties', updatedAt: now });
  });
});
