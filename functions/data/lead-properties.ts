import type { EntityItem } from 'electrodb';
import type { LeadPropertyRole } from '../domain/activities.ts';
import { LeadProperty } from './entities/lead-property.ts';
import { Property } from './entities/property.ts';
import { isConditionalFailure } from './errors.ts';

export type LeadPropertyRecord = EntityItem<typeof LeadProperty>;

/** A link with the linked listing's title, as the API shows it. */
export interface LinkedListing {
  link: LeadPropertyRecord;
  title: string;
}

export async function getLeadPropertyLink(
  tenantId: string,
  leadId: string,
  propertyId: string,
): Promise<LeadPropertyRecord | undefined> {
  const { data } = await LeadProperty.get({ tenantId, leadId, propertyId }).go();
  return data ?? undefined;
}

/** Writes the link unless the Lead already has one to this property ('exists': read that one). */
export async function insertLeadPropertyLink(record: LeadPropertyRecord): Promise<'ok' | 'exists'> {
  try {
    await LeadProperty.create(record).go();
    return 'ok';
  } catch (error) {
    if (isConditionalFailure(error)) return 'exists';
    throw error;
  }
}

/** Changes a link's role if it still has the role it was read with; 'stale' otherwise. */
export async function changeLeadPropertyRole(
  current: LeadPropertyRecord,
  role: LeadPropertyRole,
  now: string,
): Promise<LeadPropertyRecord | 'stale'> {
  try {
    const { data } = await LeadProperty.patch({
      tenantId: current.tenantId,
      leadId: current.leadId,
      propertyId: current.propertyId,
    })
      .set({ role, updatedAt: now })
      .where((attr, { eq }) => eq(attr.role, current.role))
      .go({ response: 'all_new' });
    return data as LeadPropertyRecord;
  } catch (error) {
    if (isConditionalFailure(error)) return 'stale';
    throw error;
  }
}

/** Every link of a Lead: one Query of the Lead's partition. */
export async function queryLeadPropertyLinks(
  tenantId: string,
  leadId: string,
): Promise<LeadPropertyRecord[]> {
  const { data } = await LeadProperty.query.byLead({ tenantId, leadId }).go({ pages: 'all' });
  return data;
}

/**
 * Titles of a Tenant's listings, by id, in batched reads (100 keys a request, only id and title
 * read); a listing that no longer exists is absent from the map.
 */
export async function getPropertyTitles(
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  let keys = [...new Set(ids)].map((id) => ({ tenantId, id }));
  for (let attempt = 0; keys.length > 0 && attempt < 5; attempt++) {
    const { data, unprocessed } = await Property.get(keys).go({ attributes: ['id', 'title'] });
    for (const item of data) titles.set(item.id, item.title);
    keys = unprocessed.map((k) => ({ tenantId, id: k.id }));
    if (keys.length > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
  }
  if (keys.length > 0) throw new Error(`Listing titles still unprocessed after retries (${keys.length})`);
  return titles;
}
