import {
  changeLeadPropertyRole,
  getLeadPropertyLink,
  getPropertyTitles,
  insertLeadPropertyLink,
  type LeadPropertyRecord,
  type LinkedListing,
  queryLeadPropertyLinks,
} from '../data/lead-properties.ts';
import { getLead } from '../data/leads.ts';
import { getProperty } from '../data/properties.ts';
import { type LeadPropertyRole, type LeadPropertySource, relinkRole } from '../domain/activities.ts';
import { ConflictError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';

export interface LinkLeadPropertyInput {
  tenantId: string;
  leadId: string;
  propertyId: string;
  role: LeadPropertyRole;
  source: LeadPropertySource;
}

export interface LinkOutcome {
  link: LeadPropertyRecord;
  /** false: the Lead already had a link to this listing (its role may have been updated). */
  created: boolean;
}

/**
 * Links a listing to a Lead, at most once (race-safe: the link's key is the pair). Linking again
 * keeps the first link's source and created_at; a manual link updates the role, an inquiry or a
 * match leaves an existing link as it is (domain `relinkRole`). The caller has checked that the
 * Lead and the listing belong to the Tenant. Ingestion (source inquiry) and match sending
 * (source match) call this.
 */
export async function linkLeadProperty(input: LinkLeadPropertyInput): Promise<LinkOutcome> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const now = new Date().toISOString();
    const record: LeadPropertyRecord = {
      tenantId: input.tenantId,
      leadId: input.leadId,
      propertyId: input.propertyId,
      role: input.role,
      source: input.source,
      createdAt: now,
      updatedAt: now,
    };
    if ((await insertLeadPropertyLink(record)) === 'ok') return { link: record, created: true };
    const existing = await getLeadPropertyLink(input.tenantId, input.leadId, input.propertyId);
    if (!existing) continue;
    const role = relinkRole(existing, input);
    if (role === undefined) return { link: existing, created: false };
    const updated = await changeLeadPropertyRole(existing, role, now);
    if (updated !== 'stale') return { link: updated, created: false };
  }
  throw new ConflictError('The link changed while it was being written; retry');
}

/** POST /v1/leads/{lead_id}/properties: an unknown Lead → 404, a listing the Tenant lacks → 422. */
export async function linkListingManually(
  tenantId: string,
  leadId: string,
  input: { property_id: string; role: LeadPropertyRole },
): Promise<LinkedListing & { created: boolean }> {
  const [lead, property] = await Promise.all([
    getLead(tenantId, leadId),
    getProperty(tenantId, input.property_id),
  ]);
  if (!lead) throw new NotFoundError('No lead with this id');
  if (!property) {
    throw RequestValidationError.single(
      ['body', 'property_id'],
      'No listing with this id in this tenant',
      'unknown_property',
    );
  }
  const outcome = await linkLeadProperty({
    tenantId,
    leadId,
    propertyId: property.id,
    role: input.role,
    source: 'manual',
  });
  return { ...outcome, title: property.title };
}

/**
 * GET /v1/leads/{lead_id}/properties: the Lead's links (one Query) with the listings' titles (one
 * batched read), oldest link first. A link whose listing no longer exists is left out.
 */
export async function listLinkedListings(tenantId: string, leadId: string): Promise<LinkedListing[]> {
  const [lead, links] = await Promise.all([
    getLead(tenantId, leadId),
    queryLeadPropertyLinks(tenantId, leadId),
  ]);
  if (!lead) throw new NotFoundError('No lead with this id');
  const titles = await getPropertyTitles(
    tenantId,
    links.map((l) => l.propertyId),
  );
  return links
    .filter((link) => titles.has(link.propertyId))
    .sort((a, b) =>
      a.createdAt === b.createdAt
        ? a.propertyId.localeCompare(b.propertyId)
        : a.createdAt < b.createdAt
          ? -1
          : 1,
    )
    .map((link) => ({ link, title: titles.get(link.propertyId) as string }));
}
