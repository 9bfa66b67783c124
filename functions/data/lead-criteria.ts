import type { EntityItem } from 'electrodb';
import { LeadCriteria } from './entities/lead-criteria.ts';
import { Place } from './entities/place.ts';
import type { PlaceRecord } from './places.ts';

export type LeadCriteriaRecord = EntityItem<typeof LeadCriteria>;

/** The Lead's saved criteria; undefined while none was ever saved. */
export async function getLeadCriteria(
  tenantId: string,
  leadId: string,
): Promise<LeadCriteriaRecord | undefined> {
  const { data } = await LeadCriteria.get({ tenantId, leadId }).go();
  return data ?? undefined;
}

/** Replaces the Lead's whole criteria (one PutItem: a failed write leaves the previous criteria). */
export async function putLeadCriteria(record: LeadCriteriaRecord): Promise<LeadCriteriaRecord> {
  await LeadCriteria.put(record).go();
  return record;
}

/** BatchGetItem may leave keys unprocessed under throttling; they are asked for again a few times. */
const BATCH_ATTEMPTS = 4;

/**
 * The Places among `codes` that exist, in one BatchGetItem (criteria hold at most 50 codes, under
 * its 100-key limit). Unknown codes are simply absent from the answer.
 */
export async function getPlaces(codes: readonly string[]): Promise<Map<string, PlaceRecord>> {
  const found = new Map<string, PlaceRecord>();
  let pending = [...new Set(codes)].map((code) => ({ code }));
  for (let attempt = 0; pending.length > 0 && attempt < BATCH_ATTEMPTS; attempt++) {
    const { data, unprocessed } = await Place.get(pending).go();
    for (const place of data) found.set(place.code, place);
    pending = unprocessed.map((k) => ({ code: k.code }));
  }
  return found;
}
