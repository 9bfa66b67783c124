import type { EntityItem } from 'electrodb';
import type { LeadListingRole } from '../domain/activities.ts';
import { untilProcessed } from './batch.ts';
import { LeadListing } from './entities/lead-listing.ts';
import { Listing } from './entities/listing.ts';
import { isConditionalFailure } from './errors.ts';

export type LeadListingRecord = EntityItem<typeof LeadListing>;

/** A link with the linked listing's title, as the API shows it. */
export interface LinkedListing {
  link: LeadListingRecord;
  title: string;
}

export async function getLeadListingLink(
  tenantId: string,
  leadId: string,
  propertyId: string,
): Promise<LeadListingRecord | undefined> {
  const { data } = await LeadListing.get({ tenantId, leadId, propertyId }).go();
  return data ?? undefined;
}

/** Writes the link unless the Lead already has one to this listing ('exists': read that one). */
export async function insertLeadListingLink(record: LeadListingRecord): Promise<'ok' | 'exists'> {
  try {
    await LeadListing.create(record).go();
    return 'ok';
  } catch (error) {
    if (isConditionalFailure(error)) return 'exists';
    throw error;
  }
}

/** Changes a link's role if it still has the role it was read with; 'stale' otherwise. */
export async function changeLeadListingRole(
  current: LeadListingRecord,
  role: LeadListingRole,
  now: string,
): Promise<LeadListingRecord | 'stale'> {
  try {
    const { data } = await LeadListing.patch({
      tenantId: current.tenantId,
      leadId: current.leadId,
      propertyId: current.propertyId,
    })
      .set({ role, updatedAt: now })
      .where((attr, { eq }) => eq(attr.role, current.role))
      .go({ response: 'all_new' });
    return data as LeadListingRecord;
  } catch (error) {
    if (isConditionalFailure(error)) return 'stale';
    throw error;
  }
}

/**
 * Every link of a Lead: one Query of the Lead's partition, strongly consistent (the table's own
 * partition allows it): a link made a moment ago is listed, as its Lead is read.
 */
export async function queryLeadListingLinks(tenantId: string, leadId: string): Promise<LeadListingRecord[]> {
  const { data } = await LeadListing.query
    .byLead({ tenantId, leadId })
    .go({ pages: 'all', consistent: true });
  return data;
}

/**
 * Titles of a Tenant's listings, by id, in batched reads (100 keys a request, only id and title
 * read); a listing that no longer exists is absent from the map.
 */
export async function getListingTitles(
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  await untilProcessed('getListingTitles', [...new Set(ids)], async (pending) => {
    const { data, unprocessed } = await Listing.get(pending.map((id) => ({ tenantId, id }))).go({
      attributes: ['id', 'title'],
      consistent: true, // a listing made or retitled a moment ago shows its title
    });
    for (const item of data) titles.set(item.id, item.title);
    return unprocessed.map((k) => k.id);
  });
  return titles;
}
