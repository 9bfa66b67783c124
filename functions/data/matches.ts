import type { EntityItem } from 'electrodb';
import { untilProcessed } from './batch.ts';
import { AreaMembership } from './entities/area-membership.ts';
import { MatchSent } from './entities/match-sent.ts';
import type { ListingRecord } from './listings.ts';

export type MatchSentRecord = EntityItem<typeof MatchSent>;

/** The listing attributes a match reads and shows. */
const MATCH_ATTRIBUTES = [
  'tenantId',
  'id',
  'title',
  'slug',
  'listingType',
  'propertyType',
  'price',
  'rentPrice',
  'currency',
  'bedrooms',
  'bathrooms',
  'amenities',
  'placeCode',
  'placePath',
  'archivedAt',
  'createdAt',
  'updatedAt',
] as const;

/**
 * A listing as a match reads it. The Tenant's live listings come from its catalogue
 * (services/site-catalogue.ts: in memory when warm, its snapshot when cold), never from a Query of
 * every listing.
 */
export type MatchListing = Pick<ListingRecord, (typeof MATCH_ATTRIBUTES)[number]>;

/**
 * For each of the given Areas (at most 50, the criteria's cap on `area_ids`), its members via rule
 * or manual: one Query of the Area's member index each, so the reads are bounded by the criteria,
 * not by the Tenant. Returns listing id → the ids among `areaIds` it belongs to. Excluded listings
 * are not members.
 */
export async function membersOfAreas(
  tenantId: string,
  areaIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  const members = new Map<string, Set<string>>();
  const results = await Promise.all(
    areaIds.map((areaId) =>
      AreaMembership.query
        .byArea({ tenantId, areaId })
        .where(({ via }, { ne }) => ne(via, 'excluded'))
        .go({ pages: 'all', attributes: ['propertyId', 'areaId', 'via'] }),
    ),
  );
  for (const { data } of results) {
    for (const m of data) {
      const set = members.get(m.propertyId) ?? new Set<string>();
      set.add(m.areaId);
      members.set(m.propertyId, set);
    }
  }
  return members;
}

/** When each listing was last sent to the Lead: one Query of the Lead's `matchSent#` items. */
export async function sentAtByListing(tenantId: string, leadId: string): Promise<Map<string, string>> {
  const { data } = await MatchSent.query.byLead({ tenantId, leadId }).go({ pages: 'all' });
  return new Map(data.map((m) => [m.propertyId, m.sentAt]));
}

/** Records a send of these listings to the Lead (BatchWriteItem; a re-send overwrites sentAt). */
export async function recordSent(
  tenantId: string,
  leadId: string,
  propertyIds: readonly string[],
  sentAt: string,
): Promise<void> {
  await untilProcessed('recordSent', propertyIds, async (pending) => {
    const { unprocessed } = await MatchSent.put(
      pending.map((propertyId) => ({ tenantId, leadId, propertyId, sentAt })),
    ).go();
    return unprocessed.map((k) => k.propertyId);
  });
}

/**
 * Puts the Lead's sends of these listings back as they were before a recordSent whose email then
 * failed: the previous sentAt where there was one, no record where there was none.
 */
export async function restoreSent(
  tenantId: string,
  leadId: string,
  propertyIds: readonly string[],
  previous: ReadonlyMap<string, string>,
): Promise<void> {
  const resent = propertyIds.filter((id) => previous.has(id));
  const first = propertyIds.filter((id) => !previous.has(id));
  await Promise.all([
    untilProcessed('restoreSent', resent, async (pending) => {
      const { unprocessed } = await MatchSent.put(
        pending.map((propertyId) => ({
          tenantId,
          leadId,
          propertyId,
          sentAt: previous.get(propertyId) ?? '',
        })),
      ).go();
      return unprocessed.map((k) => k.propertyId);
    }),
    untilProcessed('restoreSent', first, async (pending) => {
      const { unprocessed } = await MatchSent.delete(
        pending.map((propertyId) => ({ tenantId, leadId, propertyId })),
      ).go();
      return unprocessed.map((k) => k.propertyId);
    }),
  ]);
}
