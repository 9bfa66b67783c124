import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createConversions, type EntityItem } from 'electrodb';
import type { ListingTexts } from '../domain/listing-text.ts';
import { NotFoundError } from '../kernel/errors.ts';
import { type BoundedPage, comparePositions, mergeBounded, stoppedAtOf } from './bounded-read.ts';
import { dynamo, tableName } from './client.ts';
import { AreaMembership } from './entities/area-membership.ts';
import { LISTING_LISTS, Listing, type ListingList, listingListOf } from './entities/listing.ts';
import { ListingText } from './entities/listing-text.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { SDK_ERRORS } from './errors.ts';
import { listingWrites } from './service.ts';
import { failedCondition, writeTransaction } from './transactions.ts';

/** A listing's Area membership (the same record functions/data/areas.ts names; defined here so the two modules do not import each other). */
type AreaMembershipRecord = EntityItem<typeof AreaMembership>;

export type ListingRecord = EntityItem<typeof Listing>;

/** The list a listing is filed under, archived or not (entities/listing.ts). */
export { listingListOf } from './entities/listing.ts';

/*
 * A listing item stays small whatever its history (DynamoDB refuses an item over 400 KB, and every
 * change rewrites the whole item and its index entry). Its parts are bounded so:
 * - the listing's own text: title ≤ 255 and description ≤ 20,000 characters (≤ 61 KB in a 3-byte
 *   script); the source language's highlights and SEO description (≤ 3 KB);
 * - the gallery: ≤ 100 photos (domain/images.ts), each a few hundred bytes of ids, keys and URLs we
 *   generate (≤ 0.6 KB): ≤ 60 KB, kept on the item because every read shows it;
 * - the price history: the last PRICE_HISTORY_KEPT changes (never shown by the API);
 * - the other languages' texts: on the item while they fit INLINE_TEXT_BYTES, else every one of them
 *   in its own item beside the listing (entities/listing-text.ts, ≤ 65 KB each), read with it.
 * So the largest listing the API accepts is under 200 KB per item whatever its languages and history.
 */

/** Price changes kept on the listing, oldest dropped first: enough for a chart of recent changes. */
export const PRICE_HISTORY_KEPT = 20;

/**
 * Bytes (as JSON) of the other languages' texts the listing item keeps itself: a typical enriched
 * listing's translations fit (one item, one read); past it they move to their own items.
 */
export const INLINE_TEXT_BYTES = 32 * 1024;

/** Where a listing's texts are kept: on the listing item, or each language in its own item. */
export interface TextLayout {
  inline: ListingTexts;
  apart: ListingTexts;
}

/**
 * The source language's entry (highlights, SEO description: what every read in the listing's own
 * language shows, events included) always stays on the item; the other languages stay too while
 * they fit INLINE_TEXT_BYTES together, else all of them are kept apart.
 */
export function layoutTexts(texts: ListingTexts | undefined, sourceLanguage: string): TextLayout {
  const inline: ListingTexts = {};
  const apart: ListingTexts = {};
  const others = Object.entries(texts ?? {}).filter(([language]) => language !== sourceLanguage);
  const fits = Buffer.byteLength(JSON.stringify(Object.fromEntries(others))) <= INLINE_TEXT_BYTES;
  const own = texts?.[sourceLanguage];
  if (own) inline[sourceLanguage] = own;
  for (const [language, text] of others) (fits ? inline : apart)[language] = text;
  return { inline, apart };
}

/** The last PRICE_HISTORY_KEPT entries, or undefined when `history` is within the bound already. */
function cappedHistory(history: unknown): unknown[] | undefined {
  if (!Array.isArray(history) || history.length <= PRICE_HISTORY_KEPT) return undefined;
  return history.slice(-PRICE_HISTORY_KEPT);
}

/** What storing `texts` on a listing writes: the item's attributes, and the text items beside it. */
export interface TextPlacement {
  set: { texts?: ListingTexts; textsApart?: string[] };
  clear: ('texts' | 'textsApart')[];
  put: { language: string; text: ListingTexts[string] }[];
  remove: string[];
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The writes that store `next` as a listing's texts, given the listing as read (`current`, its texts
 * whole, `textsApart` as stored): only the text items that changed are put, the ones no longer kept
 * apart removed. A listing stored before the layout (all inline, however large) is laid out by its
 * next write of texts, or by `migrateListingLayout`.
 */
export function placeTexts(
  current: Pick<ListingRecord, 'texts' | 'textsApart'> | undefined,
  next: ListingTexts | undefined,
  sourceLanguage: string,
): TextPlacement {
  const { inline, apart } = layoutTexts(next, sourceLanguage);
  const wasApart = new Set(current?.textsApart ?? []);
  const before = (current?.texts ?? {}) as ListingTexts;
  const apartLanguages = Object.keys(apart).sort();
  const placement: TextPlacement = { set: {}, clear: [], put: [], remove: [] };
  if (next === undefined) placement.clear.push('texts');
  else placement.set.texts = inline;
  if (apartLanguages.length > 0) placement.set.textsApart = apartLanguages;
  else if (wasApart.size > 0) placement.clear.push('textsApart');
  for (const language of apartLanguages) {
    const text = apart[language];
    if (text && (!wasApart.has(language) || !sameJson(before[language], text))) {
      placement.put.push({ language, text });
    }
  }
  placement.remove = [...wasApart].filter((language) => !(language in apart));
  return placement;
}

/** The entities a `listingWrites()` transaction writes with. */
type ListingWriteEntities = Parameters<
  Parameters<ReturnType<typeof listingWrites>['transaction']['write']>[0]
>[0];

/** The transaction members that put and delete a listing's text items (`ListingText` of a Service). */
export function listingTextWrites(
  entity: ListingWriteEntities['ListingText'],
  listing: Pick<ListingRecord, 'tenantId' | 'id'>,
  placement: TextPlacement,
) {
  const owner = { tenantId: listing.tenantId, propertyId: listing.id };
  return [
    ...placement.put.map(({ language, text }) => entity.put({ ...owner, language, text }).commit()),
    ...placement.remove.map((language) => entity.delete({ ...owner, language }).commit()),
  ];
}

/** The texts kept apart of one listing, by language. */
async function readTextsApart(tenantId: string, id: string, consistent: boolean): Promise<ListingTexts> {
  const { data } = await ListingText.query
    .byLanguage({ tenantId, propertyId: id })
    .go({ pages: 'all', consistent, ...SDK_ERRORS });
  return Object.fromEntries(data.map((item) => [item.language, item.text])) as ListingTexts;
}

/**
 * Completes the listings whose texts are partly kept apart (a Query each, only for those: most
 * listings keep all their texts on the item), so every reader of this module sees `texts` whole.
 */
async function withTextsApart<R extends ListingRecord>(records: R[], consistent = false): Promise<R[]> {
  await Promise.all(
    records
      .filter((record) => (record.textsApart?.length ?? 0) > 0)
      .map(async (record) => {
        const apart = await readTextsApart(record.tenantId, record.id, consistent);
        record.texts = { ...((record.texts as ListingTexts | undefined) ?? {}), ...apart };
      }),
  );
  return records;
}

/** `consistent`: a strongly consistent read, for read-modify-write and a read of one's own write. */
export async function getListing(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<ListingRecord | undefined> {
  // Strongly consistent unless a caller opts out: read-your-writes for a by-id read (see getLead).
  const consistent = options.consistent ?? true;
  const { data } = await Listing.get({ tenantId, id }).go({ consistent });
  return data ? (await withTextsApart([data], consistent))[0] : undefined;
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
 * on each call: about 1 ms of CPU a request on the bench machine, most of a cached read's own work.
 * Built on first use, as the entities are.
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
 * taking the item's keys apart against the key templates: a third of a cached GET's ElectroDB time.
 * Every item of ours carries ElectroDB's entity and version markers, so ownership is
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
  const Items: Record<string, unknown>[] = [];
  // One page unless the listing keeps many long texts apart (more than 1 MB with them).
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': Key.pk, ':prefix': 'property' },
        // Consistent unless a caller opts out: the by-id read of GET /v1/properties/{id} (see getLead).
        ConsistentRead: options.consistent ?? true,
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      }),
    );
    Items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const propertyItem = Items.find((i) => i.__edb_e__ === 'property');
  if (!propertyItem) return undefined;
  const property = Listing.parse({ Item: propertyItem }, OWNED_BY_MARKERS).data;
  if (!property) return undefined;
  const areas = AreaMembership.parse(
    { Items: Items.filter((i) => i.__edb_e__ === 'areaMembership') },
    OWNED_BY_MARKERS,
  ).data;
  const textItems = Items.filter((i) => i.__edb_e__ === 'propertyText');
  if (textItems.length > 0) {
    const apart = ListingText.parse({ Items: textItems }, OWNED_BY_MARKERS).data;
    const kept = new Set(property.textsApart ?? []);
    property.texts = {
      ...((property.texts as ListingTexts | undefined) ?? {}),
      ...Object.fromEntries(apart.filter((t) => kept.has(t.language)).map((t) => [t.language, t.text])),
    };
  }
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
  const texts = placeTexts(undefined, record.texts as ListingTexts | undefined, record.sourceLanguage);
  const history = cappedHistory(record.priceHistory);
  const stored = {
    ...record,
    ...texts.set,
    listKey: listingListOf(record),
    ...(history ? { priceHistory: history } : {}),
  } as ListingRecord;
  const result = await writeTransaction(() =>
    listingWrites()
      .transaction.write(({ UniqueClaim, Listing: p, ListingText: t }) => [
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
        p.create(stored).commit(),
        ...listingTextWrites(t, record, texts),
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
  const stored = storedChange(current, change);
  const result = await writeTransaction(() =>
    listingWrites()
      .transaction.write(({ UniqueClaim, Listing: p, ListingText: t }) => {
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
          .set({ ...stored.set, updatedAt: now } as Partial<ListingRecord> & { updatedAt: string });
        if (stored.clear.length > 0) update = update.remove(stored.clear as never[]);
        ops.push(update.where(({ updatedAt }, { eq }) => eq(updatedAt, current.updatedAt)).commit());
        ops.push(...listingTextWrites(t, current, stored.texts));
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

/**
 * The list a stored listing is filed under: one written before archived listings had a list of
 * their own carries no `listKey` and sits in the live one.
 */
function filedUnder(listing: Pick<ListingRecord, 'listKey'>): ListingList {
  return listing.listKey ?? 'properties';
}

/**
 * A change as stored: its texts laid out (see `placeTexts`), the price history capped, and the
 * listing moved to the list its archival (or its undoing) puts it in. A listing stored before these
 * bounds or lists is brought within them by its next change, whatever the change.
 */
function storedChange(
  current: ListingRecord,
  change: ListingChange,
): { set: Partial<ListingRecord>; clear: (keyof ListingRecord)[]; texts: TextPlacement } {
  const set: Partial<ListingRecord> = { ...change.set };
  const clear = new Set<keyof ListingRecord>(change.clear);
  const next = clear.has('texts')
    ? undefined
    : ((('texts' in change.set ? change.set.texts : current.texts) as ListingTexts | undefined) ?? undefined);
  const texts = placeTexts(current, next, current.sourceLanguage);
  const textsMoved = texts.put.length > 0 || texts.remove.length > 0;
  if ('texts' in change.set || textsMoved || oversizedInline(current)) {
    Object.assign(set, texts.set);
    for (const attribute of texts.clear) clear.add(attribute);
  }
  const history = cappedHistory(set.priceHistory ?? current.priceHistory);
  if (history) set.priceHistory = history;
  const archivedAt = clear.has('archivedAt') ? undefined : (set.archivedAt ?? current.archivedAt);
  const list = listingListOf({ archivedAt });
  if (list !== filedUnder(current)) set.listKey = list;
  return { set, clear: [...clear], texts };
}

/** True when the item keeps more of its texts than the layout allows (stored before it). */
function oversizedInline(current: ListingRecord): boolean {
  const { apart } = layoutTexts(current.texts as ListingTexts | undefined, current.sourceLanguage);
  const kept = new Set(current.textsApart ?? []);
  return Object.keys(apart).some((language) => !kept.has(language));
}

/**
 * Brings a listing stored before the item bounds or the archived list within them (texts laid out,
 * price history capped, an archived listing moved out of the live list) without changing it:
 * `updatedAt` stays, so its place in the lists holds and no event sees a change. Conditioned on the
 * listing being the version read; a listing changed since was laid out by that change. Answers
 * whether it rewrote the listing.
 */
export async function migrateListingLayout(listing: ListingRecord): Promise<boolean> {
  const history = cappedHistory(listing.priceHistory);
  const list = listingListOf(listing);
  const moved = list !== filedUnder(listing);
  if (!history && !oversizedInline(listing) && !moved) return false;
  const texts = placeTexts(listing, listing.texts as ListingTexts | undefined, listing.sourceLanguage);
  const result = await writeTransaction(() =>
    listingWrites()
      .transaction.write(({ Listing: p, ListingText: t }) => {
        let update = p.patch({ tenantId: listing.tenantId, id: listing.id }).set({
          ...texts.set,
          ...(history ? { priceHistory: history } : {}),
          ...(moved ? { listKey: list } : {}),
        });
        if (texts.clear.length > 0) update = update.remove(texts.clear);
        return [
          update.where(({ updatedAt }, { eq }) => eq(updatedAt, listing.updatedAt)).commit(),
          ...listingTextWrites(t, listing, texts),
        ];
      })
      .go(),
  );
  return !result.canceled;
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

const positionOf = (listing: ListingRecord) => ({ at: listing.updatedAt, id: listing.id });

/**
 * A page of listings, least recently updated first, from the live list's partition, and the
 * archived list's too with include_archived (merged in order). Each partition is read once, up to
 * one page and one extra item (bounded-read.ts), so archived listings cost a live list nothing: a
 * Tenant's archive before its live listings is never read by it.
 */
export async function queryListings(q: ListingPageQuery): Promise<BoundedPage<ListingRecord>> {
  const lists: ListingList[] = q.includeArchived ? [...LISTING_LISTS] : ['properties'];
  const reads = await Promise.all(
    lists.map(async (listKey) => {
      const index = Listing.query.byUpdated({ tenantId: q.tenantId, listKey });
      const ranged = q.after ? index.gt(q.after) : q.since ? index.gte({ updatedAt: q.since }) : index;
      // Listings archived before archived ones had a list of their own sit in the live one until
      // re-filed (`listing migrate`): the live list leaves them out (a page is then that much shorter).
      const filtered = q.includeArchived
        ? ranged
        : ranged.where(({ archivedAt }, { notExists }) => notExists(archivedAt));
      const { data, cursor } = await filtered.go({ limit: q.limit + 1, pages: 1, ...SDK_ERRORS });
      return { items: data, stoppedAt: stoppedAtOf(cursor, 'gsi1sk') };
    }),
  );
  const page = mergeBounded(reads, q.limit, positionOf);
  return { ...page, items: await withTextsApart(page.items) };
}

/** Every listing of both lists updated at or after `since` (all without it), in list order. */
async function readBothLists(tenantId: string, since?: string): Promise<ListingRecord[]> {
  const lists = await Promise.all(
    LISTING_LISTS.map(async (listKey) => {
      const index = Listing.query.byUpdated({ tenantId, listKey });
      const { data } = await (since ? index.gte({ updatedAt: since }) : index).go({
        pages: 'all',
        ...SDK_ERRORS,
      });
      return data;
    }),
  );
  const all = lists.flat().sort((a, b) => comparePositions(positionOf(a), positionOf(b)));
  return withTextsApart(all);
}

/** Every listing of a Tenant, archived ones included (admin recomputes and imports only). */
export async function queryAllListings(tenantId: string): Promise<ListingRecord[]> {
  return readBothLists(tenantId);
}

/**
 * A Tenant's listings updated at or after `since`, least recently updated first: the site
 * catalogue's catch-up read, usually empty (a Query per list, at once, half a read unit each). The
 * archived list is read too: an archival since the watermark is how the catalogue drops a listing.
 */
export async function queryListingsUpdatedSince(tenantId: string, since: string): Promise<ListingRecord[]> {
  return readBothLists(tenantId, since);
}
