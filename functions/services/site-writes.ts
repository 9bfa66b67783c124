import { randomUUID } from 'node:crypto';
import { getAgent } from '../data/agents.ts';
import { countListingView } from '../data/listing-views.ts';
import { getListing } from '../data/listings.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { botCheckRefusal } from '../domain/bot-check.ts';
import { listingStatus } from '../domain/listing.ts';
import { allowedPageUrl } from '../domain/origins.ts';
import { windowStart } from '../domain/rate-limit.ts';
import { ForbiddenError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { verifyTurnstile } from '../kernel/ports/turnstile.ts';
import { contactOf } from './lead-ingest/contact.ts';
import { findOrCreateLead } from './lead-ingest/find-or-create-lead.ts';
import { linkLeadListing } from './lead-listings.ts';
import { siteListingBySlug } from './site.ts';

export interface SiteInquiryInput {
  name: string;
  email: string;
  message: string;
  property_id?: string | null | undefined;
  agent_id?: string | null | undefined;
  turnstile?: string | undefined;
}

/**
 * Verifies an Inquiry's Turnstile token (403 without a valid one): run by the site pipeline before
 * the body is validated, so a request without a token learns nothing of the schema.
 */
export async function requireInquiryToken(input: {
  token: unknown;
  visitorIp: string | undefined;
  origins: readonly string[];
}): Promise<void> {
  const outcome =
    typeof input.token === 'string' && input.token !== ''
      ? await verifyTurnstile(input.token, input.visitorIp)
      : { success: false };
  const refusal = botCheckRefusal(outcome, input.origins);
  if (refusal) throw new ForbiddenError(refusal);
}

/**
 * POST /v1/site/leads: an Inquiry from the website's form, taken in exactly like one from the
 * ingestion API (services/lead-ingest/: Lead matching and the owner rule; the Owner's email and the
 * scoring request follow as stream reactions of the new Inquiry),
 * with source `widget` for a new Lead, and `channel: form`, `via: widget` and the page on the
 * Inquiry: its Referer when that is an http(s) URL on one of the key's origins, else no page
 * ({@link allowedPageUrl}). Its Turnstile token was verified by the site pipeline ({@link requireInquiryToken})
 * before the body was validated.
 */
export async function takeSiteInquiry(input: {
  tenant: TenantRecord;
  body: SiteInquiryInput;
  visitorIp: string | undefined;
  /** The request's `Referer`, as sent. */
  referer: string | undefined;
  /** The publishable key's allowed origins: the page must be on one of them. */
  origins: readonly string[];
}): Promise<{ inquiryId: string }> {
  const { tenant, body } = input;
  const tenantId = tenant.tenantId;
  if (body.property_id && body.agent_id) {
    throw RequestValidationError.single(
      ['body', 'agent_id'],
      'Send property_id or agent_id, not both',
      'agent_ambiguous',
    );
  }
  const [listing, agent] = await Promise.all([
    body.property_id ? getListing(tenantId, body.property_id) : undefined,
    body.agent_id ? getAgent(tenantId, body.agent_id) : undefined,
  ]);
  if (body.property_id && (!listing || listingStatus(listing) !== 'live')) {
    throw RequestValidationError.single(
      ['body', 'property_id'],
      'No live listing with this id',
      'unknown_property',
    );
  }
  if (body.agent_id && !agent?.isActive) {
    throw RequestValidationError.single(
      ['body', 'agent_id'],
      'No active Agent with this id',
      'unknown_agent',
    );
  }
  const contact = contactOf(tenant, { name: body.name, email: body.email }, ['body', 'email']);
  const now = new Date().toISOString();
  const inquiryId = randomUUID();
  const pageUrl = allowedPageUrl(input.origins, input.referer);
  const result = await findOrCreateLead({
    tenant,
    contact,
    source: 'widget',
    sourceDetail: 'website',
    firstSeenAt: now,
    owner: { kind: 'rule', listingAgentId: listing?.agentId, namedAgent: agent },
    record: (leadId, at) => ({
      inquiry: {
        tenantId,
        id: inquiryId,
        leadId,
        ...(listing ? { propertyId: listing.id } : {}),
        propertyKey: listing?.id ?? 'none',
        channel: 'form' as const,
        via: 'widget' as const,
        type: 'inquiry' as const,
        message: body.message,
        source: 'website',
        ...(pageUrl ? { pageUrl } : {}),
        occurredAt: now,
        createdAt: at,
        updatedAt: at,
      },
    }),
  });
  if (listing) {
    await linkLeadListing({
      tenantId,
      leadId: result.lead.id,
      propertyId: listing.id,
      role: 'interested',
      source: 'inquiry',
    });
  }
  return { inquiryId: result.inquiry?.id ?? inquiryId };
}

const VIEW_WINDOW_SECONDS = 60;

/**
 * POST /v1/site/properties/{slug}/view: counts once per visitor and minute (one conditional update
 * of the listing's counter, data/listing-views.ts); unknown slug → 404. Whether it counted.
 */
export async function countSiteView(tenantId: string, slug: string, visitor: string): Promise<boolean> {
  const { listing } = await siteListingBySlug(tenantId, slug).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new NotFoundError('No live listing with this slug');
    throw error;
  });
  return countListingView({
    tenantId,
    propertyId: listing.id,
    visitor,
    windowStart: windowStart(Date.now() / 1000, VIEW_WINDOW_SECONDS),
    windowSeconds: VIEW_WINDOW_SECONDS,
  });
}
