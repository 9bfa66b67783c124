import type { EnrichmentStatus } from '../domain/enrichment.ts';
import type { ListingTexts } from '../domain/listing-text.ts';
import { Listing } from './entities/listing.ts';
import { isConditionalFailure, SDK_ERRORS } from './errors.ts';
import { type ListingRecord, listingTextWrites, placeTexts } from './listings.ts';
import { listingWrites } from './service.ts';
import { nextTimestamp } from './timestamps.ts';
import { writeTransaction } from './transactions.ts';

export interface EnrichmentUpdate {
  status: EnrichmentStatus;
  texts?: ListingTexts;
  attempts?: number;
  error?: string;
  /** A new request (resume): the stream consumer queues it. */
  newRequestId?: string;
}

/**
 * Records an enrichment outcome, only if the listing still waits for `requestId`: a client edit in
 * between made a newer request, and this (older) result must not overwrite it. With texts, only if
 * the listing is unchanged since it was read. Returns false then.
 */
export async function recordEnrichment(
  listing: ListingRecord,
  requestId: string,
  update: EnrichmentUpdate,
): Promise<boolean> {
  const now = nextTimestamp(listing.updatedAt);
  // Texts are laid out as every listing write lays them out (the long ones in their own items).
  const texts = update.texts ? placeTexts(listing, update.texts, listing.sourceLanguage) : undefined;
  const key = { tenantId: listing.tenantId, id: listing.id };
  const fields = {
    enrichmentStatus: update.status,
    ...(texts ? { ...texts.set, updatedAt: now } : {}),
    ...(update.status === 'enriched' ? { enrichedAt: now } : {}),
    ...(update.attempts !== undefined ? { enrichmentAttempts: update.attempts } : {}),
    ...(update.error ? { enrichmentError: update.error } : {}),
    ...(update.newRequestId ? { enrichmentRequestId: update.newRequestId } : {}),
  };
  const remove = [
    ...(!update.error && listing.enrichmentError ? (['enrichmentError'] as const) : []),
    ...(texts?.clear ?? []),
  ];
  if (texts && (texts.put.length > 0 || texts.remove.length > 0)) {
    // Texts kept apart change too: the listing and its text items in one transaction.
    const result = await writeTransaction(() =>
      listingWrites()
        .transaction.write(({ Listing: p, ListingText: t }) => {
          let op = p.patch(key).set(fields);
          if (remove.length > 0) op = op.remove(remove);
          return [
            op
              .where(({ updatedAt }, { eq }) => eq(updatedAt, listing.updatedAt))
              .where(({ enrichmentRequestId }, { eq }) => eq(enrichmentRequestId, requestId))
              .commit(),
            ...listingTextWrites(t, listing, texts),
          ];
        })
        .go(),
    );
    return !result.canceled;
  }
  const patch = () => {
    let op = Listing.patch(key).set(fields);
    if (remove.length > 0) op = op.remove(remove);
    // Texts are merged from `listing`: a client write since then must not be overwritten.
    if (update.texts) op = op.where(({ updatedAt }, { eq }) => eq(updatedAt, listing.updatedAt));
    return op.where(({ enrichmentRequestId }, { eq }) => eq(enrichmentRequestId, requestId));
  };
  try {
    await patch().go();
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/**
 * One bounded page of a Tenant's listings whose enrichment is held (off or paused) and not archived:
 * one Query of the live list (archived listings are in a list of their own; the filter leaves out
 * those not yet re-filed) reading at most `readLimit` listings from `checkpoint` on (least recently updated first;
 * a resume does not change `updatedAt`, so a run never meets a listing twice), the held ones kept by
 * the filter. `checkpoint` is null once the Tenant's listings are all read.
 */
export async function queryHeldListingsPage(
  tenantId: string,
  readLimit: number,
  checkpoint: string | undefined,
): Promise<{ held: ListingRecord[]; checkpoint: string | null }> {
  const { data, cursor } = await Listing.query
    .byUpdated({ tenantId, listKey: 'properties' })
    .where(
      ({ enrichmentStatus }, { eq }) =>
        `(${eq(enrichmentStatus, 'off')} OR ${eq(enrichmentStatus, 'paused')})`,
    )
    .where(({ archivedAt }, { notExists }) => notExists(archivedAt))
    .go({ limit: readLimit, cursor: checkpoint ?? null, ...SDK_ERRORS });
  return { held: data, checkpoint: cursor };
}
