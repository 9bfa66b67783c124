import type { EntityItem } from 'electrodb';
import { untilProcessed } from './batch.ts';
import { LeadCriteria } from './entities/lead-criteria.ts';
import { Place } from './entities/place.ts';
import type { PlaceRecord } from './places.ts';

export type LeadCriteriaRecord = EntityItem<typeof LeadCriteria>;

/** The Lead's saved criteria; undefined while none was ever saved. */
export async function getLeadCriteria(
  tenantId: string,
  leadId: string,
): Promise<LeadCriteriaRecord | undefined> {
  // Consistent, like every by-key read: the scoring a criteria write asks for reads it at once.
  const { data } = await LeadCriteria.get({ tenantId, leadId }).go({ consistent: true });
  return data ?? undefined;
}

/** Replaces the Lead's whole criteria (one PutItem: a failed write leaves the previous criteria). */
export async function putLeadCriteria(record: LeadCriteriaRecord): Promise<LeadCriteriaRecord> {
  await LeadCriteria.put(record).go();
  return record;
}

/**
 * The Places among `codes` that exist, in one BatchGetItem (criteria hold at most 50 codes, under
 * its 100-key limit). Unknown codes are simply absent from the answer; keys DynamoDB left unread
 * are asked for again (untilProcessed), never taken for unknown Places.
 */
export async function getPlaces(codes: readonly string[]): Promise<Map<string, PlaceRecord>> {
  const found = new Map<string, PlaceRecord>();
  await untilProcessed('getPlaces', [...new Set(codes)], async (pending) => {
    // Consistent, as getPlace: a Place saved a moment ago labels the criteria that name it.
    const { data, unprocessed } = await Place.get(pending.map((code) => ({ code }))).go({ consistent: true });
    for (const place of data) found.set(place.code, place);
    return unprocessed.map((k) => k.code);
  });
  return found;
}
