import { randomUUID } from 'node:crypto';
import { chargeSpendOnce, spentThisMonthUsd } from '../data/ai-spend.ts';
import { queryHeldListingsPage, recordEnrichment } from '../data/enrichment.ts';
import { getListing, type ListingRecord } from '../data/listings.ts';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from '../data/optimistic.ts';
import { getTenant, listTenants, type TenantRecord } from '../data/tenants.ts';
import {
  costUsd,
  type EnrichmentOutput,
  type EnrichmentRequest,
  mergeEnrichment,
  retryDelaySeconds,
  spendMonth,
  statusOnTrigger,
} from '../domain/enrichment.ts';
import { clientWritten, type ListingTexts } from '../domain/listing-text.ts';
import { config } from '../kernel/config.ts';
import { logger } from '../kernel/logger.ts';
import type { EnrichMessage, ResumeMessage } from '../kernel/messages/ai-queue.ts';
import { enrichmentProvider } from '../kernel/ports/ai-provider.ts';
import { queue } from '../kernel/ports/queue.ts';

function requestFor(listing: ListingRecord, tenant: TenantRecord): EnrichmentRequest {
  const placeNames = listing.placePath?.map((p) => p.name) ?? [];
  return {
    sourceLanguage: listing.sourceLanguage,
    languages: tenant.languages,
    facts: {
      title: listing.title,
      description: listing.description ?? null,
      listingType: listing.listingType ?? null,
      propertyType: listing.propertyType ?? null,
      bedrooms: listing.bedrooms ?? null,
      bathrooms: listing.bathrooms ?? null,
      area: listing.area ?? null,
      lotArea: listing.lotArea ?? null,
      price: listing.price ?? null,
      rentPrice: listing.rentPrice ?? null,
      currency: listing.currency ?? null,
      place: placeNames.at(-1) ?? null,
      amenities: listing.amenities ?? [],
    },
    clientWritten: clientWritten((listing.texts as ListingTexts | undefined) ?? {}, listing.sourceLanguage),
  };
}

async function allowanceOf(tenant: TenantRecord) {
  const limit = tenant.aiMonthlyLimitUsd ?? null;
  const spent = limit === null ? 0 : await spentThisMonthUsd(tenant.tenantId, spendMonth(new Date()));
  return { enabled: tenant.aiEnabled, monthlyLimitUsd: limit, spentThisMonthUsd: spent };
}

/**
 * Runs one enrichment request: held (off, paused) when the Tenant's switch or ceiling says so;
 * otherwise the provider writes translations, highlights and an SEO description (never over text a
 * client wrote) and, once written, the usage is charged (once per request). A failing provider is
 * retried with backoff, then failed.
 */
export async function enrichListing(message: EnrichMessage): Promise<void> {
  // Strongly consistent: the message follows at once the write that asked for it, which an
  // eventually consistent read may not show yet (the request would be dropped as superseded).
  const [tenant, listing] = await Promise.all([
    getTenant(message.tenantId, { consistent: true }),
    getListing(message.tenantId, message.propertyId, { consistent: true }),
  ]);
  if (!tenant || !listing) return;
  if (listing.enrichmentRequestId !== message.requestId || listing.enrichmentStatus !== 'pending') return;

  const held = statusOnTrigger(await allowanceOf(tenant));
  if (held !== 'pending') {
    await recordEnrichment(listing, message.requestId, { status: held });
    return;
  }
  const provider = enrichmentProvider();
  let result: Awaited<ReturnType<typeof provider.enrich>>;
  try {
    result = await provider.enrich(requestFor(listing, tenant));
  } catch (error) {
    await retryOrFail(message, listing, provider.name, error as Error);
    return;
  }
  if (!(await writeEnrichment(message, listing, result.output))) return;
  // Charged only once the result is written, and once per request: a redelivered message finds
  // the listing enriched (or the receipt) and is not charged again.
  const { AI_PRICE_INPUT_PER_1K_USD: input, AI_PRICE_OUTPUT_PER_1K_USD: output } = config();
  await chargeSpendOnce(
    tenant.tenantId,
    `enrich#${message.requestId}`,
    spendMonth(new Date()),
    costUsd(result.usage, { input, output }),
    result.usage,
  );
}

/**
 * Writes the provider's output merged into the latest texts: a client write during the run is
 * re-read, never overwritten. False when the listing no longer waits for this request (a newer
 * request, or a concurrent delivery of this one that wrote first).
 */
async function writeEnrichment(
  message: EnrichMessage,
  listing: ListingRecord,
  output: EnrichmentOutput,
): Promise<boolean> {
  return withOptimisticRetry(
    async (attempt) => {
      const current =
        attempt === 1
          ? listing
          : await getListing(message.tenantId, message.propertyId, { consistent: true });
      if (current?.enrichmentRequestId !== message.requestId || current.enrichmentStatus !== 'pending')
        return false;
      const texts = mergeEnrichment(
        (current.texts as ListingTexts | undefined) ?? {},
        current.sourceLanguage,
        output,
      );
      const done = await recordEnrichment(current, message.requestId, {
        status: 'enriched',
        texts,
        attempts: message.attempt,
      });
      return done ? true : RETRY;
    },
    {
      attempts: EDIT_ATTEMPTS,
      exhausted: () => {
        logger.warn('could not record an enrichment: the listing kept changing', { propertyId: listing.id });
        return false;
      },
    },
  );
}

/** A failed provider run: retried with backoff (30 s, 2 min, 10 min), then the request fails. */
async function retryOrFail(message: EnrichMessage, listing: ListingRecord, provider: string, error: Error) {
  const delay = retryDelaySeconds(message.attempt);
  logger.warn('enrichment attempt failed', {
    propertyId: listing.id,
    attempt: message.attempt,
    provider,
    error,
  });
  if (delay !== undefined) {
    await queue().send('ai', { ...message, attempt: message.attempt + 1 }, { delaySeconds: delay });
    await recordEnrichment(listing, message.requestId, { status: 'pending', attempts: message.attempt });
  } else {
    await recordEnrichment(listing, message.requestId, {
      status: 'failed',
      attempts: message.attempt,
      error: error.message.slice(0, 500),
    });
  }
}

/**
 * Listings one resume page reads (one Query; the held ones among them are re-requested, an update
 * each): a page is a few seconds of work, far inside the AI worker's timeout, whatever the Tenant's size.
 */
export const RESUME_PAGE_LISTINGS = 500;

/**
 * Re-requests the held enrichments (off or paused, not archived) of one page of the Tenant's
 * listings from `checkpoint` on, if AI is available to the Tenant again: after the switch is turned
 * on, the ceiling is raised, or a new month starts. `checkpoint` is where the next page starts, null
 * at the end (or when the Tenant is still held: nothing to page through).
 */
async function resumeHeldPage(
  tenantId: string,
  checkpoint: string | undefined,
  pageListings: number,
): Promise<{ resumed: number; checkpoint: string | null }> {
  // Strongly consistent: called right after the change of the Tenant's AI settings that allows it.
  const tenant = await getTenant(tenantId, { consistent: true });
  if (!tenant) return { resumed: 0, checkpoint: null };
  if (statusOnTrigger(await allowanceOf(tenant)) !== 'pending') return { resumed: 0, checkpoint: null };
  const page = await queryHeldListingsPage(tenantId, pageListings, checkpoint);
  let resumed = 0;
  for (const listing of page.held) {
    if (!listing.enrichmentRequestId) continue;
    const ok = await recordEnrichment(listing, listing.enrichmentRequestId, {
      status: 'pending',
      attempts: 0,
      newRequestId: randomUUID(),
    });
    if (ok) resumed++;
  }
  return { resumed, checkpoint: page.checkpoint };
}

/** Requeues all of a Tenant's held enrichments, page after page (the admin command, a settings change). */
export async function resumeHeldEnrichments(
  tenantId: string,
  pageListings = RESUME_PAGE_LISTINGS,
): Promise<{ resumed: number }> {
  let resumed = 0;
  let checkpoint: string | undefined;
  do {
    const page = await resumeHeldPage(tenantId, checkpoint, pageListings);
    resumed += page.resumed;
    checkpoint = page.checkpoint ?? undefined;
  } while (checkpoint);
  return { resumed };
}

/**
 * One page of a Tenant's resume run (a message of the AI queue): re-requests its held enrichments
 * and, when listings remain, queues the next page from the checkpoint reached. A redelivered
 * message redoes its page harmlessly (the re-requested listings are pending, no longer held). The
 * pages of one run are a chain of invocations of the AI worker by its own queue, longer than Lambda's
 * recursive loop detection allows for a Tenant of more than 16 pages: the worker's row allows it
 * (functions/workers.ts `recursiveLoop`), and the checkpoint ends the chain.
 */
export async function resumeFromMessage(
  message: ResumeMessage,
  pageListings = RESUME_PAGE_LISTINGS,
): Promise<{ resumed: number; checkpoint: string | null }> {
  const page = await resumeHeldPage(message.tenantId, message.checkpoint, pageListings);
  if (page.checkpoint) {
    await queue().send('ai', {
      type: 'resume',
      tenantId: message.tenantId,
      checkpoint: page.checkpoint,
    } satisfies ResumeMessage);
  }
  return page;
}

/**
 * Queues a listing's enrichment request (its first attempt) on the AI queue: sent by the stream
 * reaction functions/streams/reactions/enrichment-request.ts once the write that asked committed.
 */
export async function requestEnrichment(
  tenantId: string,
  propertyId: string,
  requestId: string,
): Promise<void> {
  await queue().send('ai', {
    type: 'enrich',
    tenantId,
    propertyId,
    requestId,
    attempt: 1,
  } satisfies EnrichMessage);
}

/** Resume messages the daily job sends at once. */
const RESUME_SENDS_AT_ONCE = 10;

/**
 * The daily job: a new month resets every Tenant's AI spend, so enrichments paused by the ceiling
 * resume. It only fans out: one resume message per Tenant with AI on and a ceiling, on the AI queue,
 * where each Tenant's run pages through its listings with a checkpoint (resumeFromMessage). The job
 * itself reads the Tenants alone, so it finishes however many listings they hold.
 */
export async function resumeAllTenants(): Promise<{ tenants: number }> {
  const tenants = (await listTenants()).filter((t) => t.aiEnabled && t.aiMonthlyLimitUsd !== undefined);
  for (let i = 0; i < tenants.length; i += RESUME_SENDS_AT_ONCE) {
    await Promise.all(
      tenants
        .slice(i, i + RESUME_SENDS_AT_ONCE)
        .map((t) => queue().send('ai', { type: 'resume', tenantId: t.tenantId } satisfies ResumeMessage)),
    );
  }
  return { tenants: tenants.length };
}
