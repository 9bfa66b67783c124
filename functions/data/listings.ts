import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createConversions, type EntityItem } from 'electrodb';
import { NotFoundError } from '../kernel/errors.ts';
import type { AreaMembershipRecord } from './areas.ts';
import { dynamo, tableName } from './client.ts';
import { AreaMembership } from './entities/area-membership.ts';
import { Listing } from './entities/listing.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { SDK_ERRORS } from './errors.ts';
import { listingWrites } from './service.ts';
import { failedCondition, writeTransaction } from './transactions.ts';

export type ListingRecord = EntityItem<typeof Listing>;

/** `consistent`: a strongly consistent read, for read-modify-write and a read of one's own write. */
export async function getListing(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<ListingRecord | undefined> {
  // Strongly consistent unless a caller opts out: read-your-writes for a by-id read (see getLead).
  const { data } = await Listing.get({ tenantId, id }).go({ consistent: options.consistent ?? true });
  return data ?? undefined;
}

export async function requireListing(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<ListingRecord> {
  const property = await getListing(tenantId, id, options);
  if (!property) throw new NotFoundError('No listing with this id');
  return property;
}

let propertyKeys: ((composite: { tenantId: string; id: string }) => { pk: string }) | undefined;

/**
 * The listing's table key, built by ElectroDB's key conversions (one template, the entity's own)
 * instead of a `get().params()` query chain, which builds a proxy over every attribute of the model
 * on each call: about 1 ms of CPU a request on the bench machine, most of a cached read's own work
 * (issue 14). Built on first use, as the entities are.
 */
function propertyKey(tenantId: string, id: string): { pk: string } {
  if (!propertyKeys) {
    const conversions = createConversions(Listing);
    propertyKeys = (composite) => conversions.fromComposite.toKeys<{ pk: string }>(composite);
  }
  return propertyKeys({ tenantId, id });
}

/**
 * ElectroDB's `parse` defaults to `ignoreOwnership: true`, under which it proves an item its own by
 * taking the item's keys apart against the key templates: a third of a cached GET's ElectroDB time
 * (issue 14). Every item of ours carries ElectroDB's entity and version markers, so ownership is
 * checked by those instead (`__edb_e__` and `__edb_v__` equal to the entity's): cheaper, and stricter,
 * as an item of another version is refused too.
 */
const OWNED_BY_MARKERS = { ignoreOwnership: false } as const;

/**
 * A listing and its Area memberships in one Query: they share the listing's partition (sort keys
 * `property` and `property#area#…`), so a read labels its Areas without another round trip.
 */
export async function getListingWithAreas(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<{ property: ListingRecord; areas: AreaMembershipRecord[] } | undefined> {
  const Key = propertyKey(tenantId, id);
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': Key.pk, ':prefix': 'property' },
      // Consistent unless a caller opts out: the by-id read of GET /v1/properties/{id} (see getLead).
      ConsistentRead: options.consistent ?? true,
    }),
  );
  const propertyItem = Items.find((i) => i.__edb_e__ === 'property');
  if (!propertyItem) return undefined;
  const property = Listing.parse({ Item: propertyItem }, OWNED_BY_MARKERS).data;
  if (!property) return undefined;
  const areas = AreaMembership.parse(
    { Items: Items.filter((i) => i.__edb_e__ === 'areaMembership') },
    OWNED_BY_MARKERS,
  ).data;
  return { property, areas };
}

export type ClaimKind = 'property-slug' | 'property-ref';

/**
 * Who holds a slug or internal_ref of a Tenant (a retired slug still names its listing). Consistent
 * by default: a claim made a moment ago must be seen by the write or the lookup that follows it.
 */
export async function findListingClaim(
  tenantId: string,
  kind: ClaimKind,
  value: string,
  options: { consistent?: boolean } = {},
) {
  const { data } = await UniqueClaim.get({ scope: `t#${tenantId}`, kind, value }).go({
    consistent: options.consistent ?? true,
  });
  return data ? { ownerId: data.ownerId, retired: data.retired ?? false } : undefined;
}

export type ClaimOutcome = 'ok' | 'slug_taken' | 'ref_taken';

function rejectedClaim(
  result: { canceled: boolean; data: { rejected: boolean }[] },
  claims: ('slug' | 'ref')[],
): ClaimOutcome {
  if (!result.canceled) return 'ok';
  return claims[failedCondition(result)] === 'ref' ? 'ref_taken' : 'slug_taken';
}

/**
 * Writes a new listing together with the claims on its slug and internal_ref, in one transaction:
 * either all three land or none does, so two concurrent creates with one internal_ref cannot both win.
 */
export async function insertListing(record: ListingRecord): Promise<ClaimOutcome> {
  const claims: ('slug' | 'ref')[] = ['slug', ...(record.internalRef ? (['ref'] as const) : [])];
  const scope = `t#${record.tenantId}`;
  const result = await writeTransaction(() =>
    listingWrites()
      .transaction.write(({ UniqueClaim, Listing: p }) => [
        UniqueClaim.create({
          scope,
          kind: 'property-slug',
          value: record.slug,
          ownerId: record.id,
          createdAt: record.createdAt,
        }).commit(),
        ...(record.internalRef
          ? [
              UniqueClaim.create({
                scope,
                kind: 'property-ref',
                value: record.internalRef,
                ownerId: record.id,
                createdAt: record.createdAt,
              }).commit(),
            ]
          : []),
        p.create(record).commit(),
      ])
      .go(),
  );
  return rejectedClaim(result, claims);
}

export interface ListingChange {
  set: Partial<ListingRecord>;
  clear: (keyof ListingRecord)[];
  /**
   * A new slug to claim; the previous one is retired but keeps resolving to the listing.
   * `reclaim`: the new slug is one this listing held before, so its retired claim is revived.
   */
  newSlug?: { value: string; previous: string; reclaim?: boolean };
  /** A new internal_ref to claim (undefined value: the ref is removed); the previous claim is freed. */
  newRef?: { value: string | undefined; previous: string | undefined };
}

/**
 * Applies an edit, with any slug or internal_ref claim changes, in one transaction conditioned on
 * the listing being unchanged since it was read (`updatedAt`), so concurrent edits cannot
 * interleave half-way.
 */
export async function applyListingChange(
  current: ListingRecord,
  change: ListingChange,
  now: string,
): Promise<ClaimOutcome | 'stale'> {
  const scope = `t#${current.tenantId}`;
  const claims: ('slug' | 'ref' | 'other')[] = [];
  const result = await writeTransaction(() =>
    listingWrites()
      .transaction.write(({ UniqueClaim, Listing: p }) => {
        // Built afresh by each attempt of the transaction.
        claims.length = 0;
        const ops = [];
        if (change.newSlug) {
          claims.push('slug');
          ops.push(
            change.newSlug.reclaim
              ? UniqueClaim.patch({ scope, kind: 'property-slug', value: change.newSlug.value })
                  .set({ retired: false })
                  .where(({ ownerId }, { eq }) => eq(ownerId, current.id))
                  .commit()
              : UniqueClaim.create({
                  scope,
                  kind: 'property-slug',
                  value: change.newSlug.value,
                  ownerId: current.id,
                  createdAt: now,
                }).commit(),
          );
          claims.push('other');
          ops.push(
            UniqueClaim.patch({ scope, kind: 'property-slug', value: change.newSlug.previous })
              .set({ retired: true })
              .commit(),
          );
        }
        if (change.newRef) {
          if (change.newRef.value) {
            claims.push('ref');
            ops.push(
              UniqueClaim.create({
                scope,
                kind: 'property-ref',
                value: change.newRef.value,
                ownerId: current.id,
                createdAt: now,
              }).commit(),
            );
          }
          if (change.newRef.previous) {
            claims.push('other');
            ops.push(
              UniqueClaim.delete({ scope, kind: 'property-ref', value: change.newRef.previous }).commit(),
            );
          }
        }
        claims.push('other');
        let update = p
          .patch({ tenantId: current.tenantId, id: current.id })
          .set({ ...change.set, updatedAt: now } as Partial<ListingRecord> & { updatedAt: string });
        if (change.clear.length > 0) update = update.remove(change.clear as never[]);
        ops.push(update.where(({ updatedAt }, { eq }) => eq(updatedAt, current.updatedAt)).commit());
        return ops;
      })
      .go(),
  );
  if (!result.canceled) return 'ok';
  const kind = claims[failedCondition(result)];
  if (kind === 'slug') return 'slug_taken';
  if (kind === 'ref') return 'ref_taken';
  return 'stale';
}

export interface ListingPageQuery {
  tenantId: string;
  limit: number;
  /** Exclusive lower bound: the (updatedAt, id) of the last item already returned. */
  after?: { updatedAt: string; id: string };
  /** Inclusive lower bound on updatedAt. */
  since?: string;
  includeArchived: boolean;
}

/**
 * Listings least recently updated first. Fetches one extra item so the caller knows if more exist.
 * DynamoDB applies Limit before the archived filter, so `count` keeps reading until enough
 * unarchived items are found (otherwise archived ones would shorten or end the page early).
 */
export async function queryListings(q: ListingPageQuery): Promise<ListingRecord[]> {
  const index = Listing.query.byUpdated({ tenantId: q.tenantId });
  const ranged = q.after ? index.gt(q.after) : q.since ? index.gte({ updatedAt: q.since }) : index;
  const filtered = q.includeArchived
    ? ranged
    : ranged.where(({ archivedAt }, { notExists }) => notExists(archivedAt));
  const { data } = await filtered.go({ limit: q.limit + 1, count: q.limit + 1 });
  return data;
}

/** Every listing of a Tenant, archived ones included (admin recomputes and imports only). */
export async function queryAllListings(tenantId: string): Promise<ListingRecord[]> {
  const { data } = await Listing.query.byUpdated({ tenantId }).go({ pages: 'all' });
  return data;
}

/**
 * A Tenant's listings updated at or after `since` (archived ones included), least recently updated
 * first: the site catalogue's catch-up read, usually empty (one Query, half a read unit).
 */
export async function queryListingsUpdatedSince(tenantId: string, since: string): Promise<ListingRecord[]> {
  const { data } = await Listing.query
    .byUpdated({ tenantId })
    .gte({ updatedAt: since })
    .go({ pages: 'all', ...SDK_ERRORS });
  return data;
}
