import { getLeadCriteria } from '../data/lead-criteria.ts';
import { requireLead } from '../data/leads.ts';
import { getListingWithAreas, type ListingRecord } from '../data/listings.ts';
import {
  type MatchListing,
  membersOfAreas,
  recordSent,
  restoreSent,
  sentAtByListing,
} from '../data/matches.ts';
import type { TenantRecord } from '../data/tenants.ts';
import {
  type Criteria,
  hasCriterion,
  MAX_MATCHES,
  type MatchReason,
  matchReasons,
  newestFirst,
} from '../domain/criteria.ts';
import { RequestValidationError, type ValidationIssue } from '../kernel/errors.ts';
import { emails } from '../kernel/ports/email.ts';
import { criteriaOf } from './lead-criteria.ts';
import { linkLeadListing } from './lead-listings.ts';
import { siteCatalogue } from './site-catalogue.ts';

export interface Match {
  listing: MatchListing;
  reasons: MatchReason[];
  sentAt: string | undefined;
}

const NO_AREAS: ReadonlySet<string> = new Set();

async function savedCriteria(tenantId: string, leadId: string): Promise<Criteria | undefined> {
  const record = await getLeadCriteria(tenantId, leadId);
  return record ? criteriaOf(record) : undefined;
}

/**
 * GET /v1/leads/{lead_id}/matches: the Tenant's live listings that meet every criterion the Lead
 * has, newest first, at most MAX_MATCHES. No criteria (never saved, or nothing but notes and a
 * currency) → no matches. Reads: the Lead, its criteria and its sends (its partition), the Tenant's
 * catalogue of live listings (services/site-catalogue.ts: warm, the catch-up Query; cold, its
 * snapshot and the catch-up; never the whole listing index while a snapshot exists), and one Query
 * per criteria Area (≤ 50). An unknown Lead → 404.
 */
export async function listLeadMatches(tenantId: string, leadId: string): Promise<Match[]> {
  const [, criteria] = await Promise.all([requireLead(tenantId, leadId), savedCriteria(tenantId, leadId)]);
  if (!hasCriterion(criteria)) return [];
  const [catalogue, members, sent] = await Promise.all([
    siteCatalogue(tenantId),
    criteria.areaIds.length ? membersOfAreas(tenantId, criteria.areaIds) : new Map<string, Set<string>>(),
    sentAtByListing(tenantId, leadId),
  ]);
  const matches: Match[] = [];
  for (const listing of catalogue.listings.values()) {
    const reasons = matchReasons(criteria, listing, members.get(listing.id) ?? NO_AREAS);
    if (reasons) matches.push({ listing, reasons, sentAt: sent.get(listing.id) });
    // The catalogue is newest first: the first MAX_MATCHES found are the answer.
    if (matches.length === MAX_MATCHES) break;
  }
  return matches.sort((a, b) => newestFirst(a.listing, b.listing)).slice(0, MAX_MATCHES);
}

export interface SentMatch {
  propertyId: string;
  sentAt: string;
}

/** "Marbella, Málaga, Andalusia, Spain": the Place's path, most specific first. */
function placeLine(listing: ListingRecord): string | undefined {
  const names = (listing.placePath ?? []).map((p) => p.name).reverse();
  return names.length ? names.join(', ') : undefined;
}

function describeListing(listing: ListingRecord, index: number): string {
  const rent = listing.listingType === 'rent';
  const amount = rent ? listing.rentPrice : listing.price;
  const facts = [
    listing.listingType === 'rent' ? 'For rent' : listing.listingType === 'sale' ? 'For sale' : undefined,
    amount ? `${amount}${listing.currency ? ` ${listing.currency}` : ''}` : undefined,
    listing.propertyType,
    listing.bedrooms !== undefined ? `${listing.bedrooms} bedrooms` : undefined,
    listing.bathrooms !== undefined ? `${listing.bathrooms} bathrooms` : undefined,
  ].filter((f): f is string => Boolean(f));
  const lines = [`${index + 1}. ${listing.title}`];
  if (facts.length) lines.push(`   ${facts.join(' · ')}`);
  const place = placeLine(listing);
  if (place) lines.push(`   ${place}`);
  return lines.join('\n');
}

function composeEmail(tenant: TenantRecord, leadName: string, listings: ListingRecord[]) {
  const count = listings.length === 1 ? 'a listing' : `${listings.length} listings`;
  const text = [
    `Hello ${leadName},`,
    '',
    `${tenant.name} picked ${count} matching what you are looking for:`,
    '',
    listings.map(describeListing).join('\n\n'),
    '',
    'Reply to this email to ask a question or arrange a visit.',
    '',
    tenant.name,
    ...(tenant.website ? [tenant.website] : []),
  ].join('\n');
  return { subject: `${tenant.name}: ${count} for you`, text };
}

/**
 * POST /v1/leads/{lead_id}/matches:send. Everything is checked before anything happens: the Lead
 * needs an email (422 at body), and each listing must be the Tenant's and a current match (422 at
 * body.property_ids[i], one issue per listing). Then one email lists the listings, sent_at is
 * recorded per (Lead, listing), and each listing is linked to the Lead (source match, role
 * interested; an existing link is left as it is). The send is recorded before the email goes, so
 * a failure to record answers 5xx with no email sent, and a client's retry cannot email twice; an
 * email that fails puts the records back as they were, so no send is claimed that never happened.
 */
export async function sendLeadMatches(
  tenant: TenantRecord,
  leadId: string,
  propertyIds: readonly string[],
): Promise<SentMatch[]> {
  const tenantId = tenant.tenantId;
  const [lead, criteria] = await Promise.all([
    requireLead(tenantId, leadId),
    savedCriteria(tenantId, leadId),
  ]);
  if (!lead.email) {
    throw RequestValidationError.single(
      ['body'],
      'The lead has no email address to send listings to',
      'lead_without_email',
    );
  }

  // The first occurrence of each id, with its index for the error location.
  const wanted = new Map<string, number>();
  propertyIds.forEach((id, index) => {
    if (!wanted.has(id)) wanted.set(id, index);
  });
  const found = await Promise.all([...wanted.keys()].map((id) => getListingWithAreas(tenantId, id)));

  const issues: ValidationIssue[] = [];
  const listings: ListingRecord[] = [];
  [...wanted].forEach(([id, index], i) => {
    const hit = found[i];
    const loc = ['body', 'property_ids', index];
    if (!hit) {
      issues.push({ loc, msg: `No listing ${id} in this tenant`, type: 'unknown_property' });
      return;
    }
    const areaIds = new Set(hit.areas.filter((m) => m.via !== 'excluded').map((m) => m.areaId));
    if (!hasCriterion(criteria) || !matchReasons(criteria, hit.property, areaIds)) {
      issues.push({ loc, msg: `Listing ${id} is not a current match for this lead`, type: 'not_a_match' });
      return;
    }
    listings.push(hit.property);
  });
  if (issues.length > 0) throw new RequestValidationError(issues);

  const sentAt = new Date().toISOString();
  const ids = listings.map((l) => l.id);
  const previous = await sentAtByListing(tenantId, leadId);
  await recordSent(tenantId, leadId, ids, sentAt);
  try {
    await emails().send({ tenantId, to: lead.email, ...composeEmail(tenant, lead.name, listings) });
  } catch (error) {
    await restoreSent(tenantId, leadId, ids, previous);
    throw error;
  }
  await Promise.all(
    ids.map((propertyId) =>
      linkLeadListing({ tenantId, leadId, propertyId, role: 'interested', source: 'match' }),
    ),
  );
  return ids.map((propertyId) => ({ propertyId, sentAt }));
}
