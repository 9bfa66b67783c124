import {
  changeLeadListingRole,
  getLeadListingLink,
  getListingTitles,
  insertLeadListingLink,
  type LeadListingRecord,
  type LinkedListing,
  queryLeadListingLinks,
} from '../data/lead-listings.ts';
import { getLead } from '../data/leads.ts';
import { getListing } from '../data/listings.ts';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from '../data/optimistic.ts';
import { nextTimestamp } from '../data/timestamps.ts';
import { type LeadListingRole, type LeadListingSource, relinkRole } from '../domain/activities.ts';
import { ConflictError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';

export interface LinkLeadListingInput {
  tenantId: string;
  leadId: string;
  propertyId: string;
  role: LeadListingRole;
  source: LeadListingSource;
}

export interface LinkOutcome {
  link: LeadListingRecord;
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
export async function linkLeadListing(input: LinkLeadListingInput): Promise<LinkOutcome> {
  return withOptimisticRetry<LinkOutcome>(
    async () => {
      const now = new Date().toISOString();
      const record: LeadListingRecord = {
        tenantId: input.tenantId,
        leadId: input.leadId,
        propertyId: input.propertyId,
        role: input.role,
        source: input.source,
        createdAt: now,
        updatedAt: now,
      };
      if ((await insertLeadListingLink(record)) === 'ok') return { link: record, created: true };
      const existing = await getLeadListingLink(input.tenantId, input.leadId, input.propertyId);
      if (!existing) return RETRY; // removed in between: insert again
      const role = relinkRole(existing, input);
      if (role === undefined) return { link: existing, created: false };
      const updated = await changeLeadListingRole(existing, role, nextTimestamp(existing.updatedAt));
      return updated === 'stale' ? RETRY : { link: updated, created: false };
    },
    {
      attempts: EDIT_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('The link changed while it was being written; retry');
      },
    },
  );
}

/** POST /v1/leads/{lead_id}/properties: an unknown Lead → 404, a listing the Tenant lacks → 422. */
export async function linkListingManually(
  tenantId: string,
  leadId: string,
  input: { property_id: string; role: LeadListingRole },
): Promise<LinkedListing & { created: boolean }> {
  const [lead, property] = await Promise.all([
    getLead(tenantId, leadId),
    getListing(tenantId, input.property_id),
  ]);
  if (!lead) throw new NotFoundError('No lead with this id');
  if (!property) {
    throw RequestValidationError.single(
      ['body', 'property_id'],
      'No listing with this id in this tenant',
      'unknown_property',
    );
  }
  const outcome = await linkLeadListing({
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
    queryLeadListingLinks(tenantId, leadId),
  ]);
  if (!lead) throw new NotFoundError('No lead with this id');
  const titles = await getListingTitles(
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
