import {
  galleryOf,
  getImageImport,
  type ImageImportRecord,
  insertImageImport,
  retryImageImport,
  touchImageImportQueuedAt,
} from '../data/listing-images.ts';
import { requireListing } from '../data/listings.ts';
import { importIdFor, MAX_GALLERY_IMAGES } from '../domain/images.ts';
import { NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { checkPublicUrl, privateUrlsAllowed } from '../kernel/net/public-address.ts';
import { queue } from '../kernel/ports/queue.ts';

/**
 * Photo import by URL (docs/photos.md): the request is recorded as pending and its fetch queued;
 * the worker (services/photo-processing.ts) fetches through the SSRF-safe connector, makes the
 * renditions and ends the import ready (with its gallery image) or failed (with a reason). A
 * confirmed upload is imported the same way, from the original the confirm kept.
 */

/** What the photo queue carries: one attempt of one import (by URL, or of a confirmed upload). */
export interface ImageImportMessage {
  type: 'import';
  tenantId: string;
  propertyId: string;
  importId: string;
  attempt: number;
}

/**
 * What the photo queue carries for a deleted photo: its files, deleted again (the route deleted them;
 * a repeat is harmless), then its CDN paths invalidated, retried by the queue until the CDN takes them.
 */
export interface PhotoPurgeMessage {
  type: 'purge';
  tenantId: string;
  propertyId: string;
  keys: string[];
  paths: string[];
}

export type PhotoQueueMessage = ImageImportMessage | PhotoPurgeMessage;

/** A pending import whose fetch was queued longer ago than this is queued again on a repeat request. */
const REQUEUE_AFTER_MS = 5 * 60_000;

export interface ImportRequest {
  url: string;
  is_primary?: boolean | undefined;
  sort_order?: number | undefined;
}

/**
 * Queues a pending import again when its message was queued long ago: the message may have been lost
 * (the queue refused it, or it was dead-lettered). The worker ends an attempt once, so a duplicate
 * does no harm. A repeated request (the same URL, the same upload confirmed again) calls it.
 */
export async function requeueIfLost(record: ImageImportRecord, now: string): Promise<void> {
  if (record.status !== 'pending' || Date.now() - Date.parse(record.queuedAt) <= REQUEUE_AFTER_MS) return;
  await touchImageImportQueuedAt(record, now);
  await enqueueImport(record);
}

/** Queues the next attempt of an import for the worker. */
export async function enqueueImport(
  record: Pick<ImageImportRecord, 'tenantId' | 'propertyId' | 'id' | 'attempt'>,
): Promise<void> {
  const message: ImageImportMessage = {
    type: 'import',
    tenantId: record.tenantId,
    propertyId: record.propertyId,
    importId: record.id,
    attempt: record.attempt,
  };
  await queue().send('images', message);
}

/**
 * Requests the import of `url` into a listing. A new URL: pending, fetch queued (`created`). The
 * same URL again: the existing import when pending or ready; a failed one, or a ready one whose photo
 * has since been deleted from the gallery, is tried again (pending, same id, `created` true: the
 * answer is a 202 again). Otherwise a deleted photo could never be put back from its URL.
 */
export async function requestImport(
  tenantId: string,
  propertyId: string,
  input: ImportRequest,
): Promise<{ record: ImageImportRecord; created: boolean }> {
  // Another Tenant's listing is a 404 whatever the body says.
  const property = await requireListing(tenantId, propertyId);
  const problem = checkPublicUrl(input.url, { allowPrivate: privateUrlsAllowed() });
  if (problem) throw RequestValidationError.single(['body', 'url'], problem, 'invalid_url');
  if ((property.images?.length ?? 0) >= MAX_GALLERY_IMAGES) {
    throw RequestValidationError.single(
      ['body', 'url'],
      `A listing holds at most ${MAX_GALLERY_IMAGES} images; delete one first`,
      'too_many_images',
    );
  }
  const url = new URL(input.url).href;
  const id = importIdFor(tenantId, propertyId, url);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const now = new Date().toISOString();
    if (
      await insertImageImport({
        tenantId,
        propertyId,
        id,
        source: { url },
        isPrimary: input.is_primary,
        sortOrder: input.sort_order,
        now,
      })
    ) {
      const record = await requireImport(tenantId, propertyId, id, CONSISTENT);
      await enqueueImport(record);
      return { record, created: true };
    }
    const existing = await requireImport(tenantId, propertyId, id, CONSISTENT);
    if (existing.status === 'failed' || (await photoDeleted(existing))) {
      const retry = { isPrimary: input.is_primary, sortOrder: input.sort_order };
      if (!(await retryImageImport(existing, retry, now))) continue;
      const record = await requireImport(tenantId, propertyId, id, CONSISTENT);
      await enqueueImport(record);
      return { record, created: true };
    }
    await requeueIfLost(existing, now);
    return { record: existing, created: false };
  }
  throw new Error('The import kept changing while it was being requested');
}

/** A ready import whose photo is no longer in the listing's gallery (deleted since it was imported). */
async function photoDeleted(record: ImageImportRecord): Promise<boolean> {
  if (record.status !== 'ready') return false;
  const gallery = galleryOf(await requireListing(record.tenantId, record.propertyId));
  return !gallery.some((image) => image.id === record.imageId);
}

/** The request's reads follow its own writes at once: strongly consistent. */
export const CONSISTENT = { consistent: true } as const;

export async function requireImport(
  tenantId: string,
  propertyId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<ImageImportRecord> {
  const record = await getImageImport(tenantId, propertyId, id, options);
  if (!record) throw new NotFoundError('No import with this id on this listing');
  return record;
}

/** An import of a listing of this Tenant (404 for another listing's or Tenant's). */
export async function readImport(tenantId: string, propertyId: string, importId: string) {
  await requireListing(tenantId, propertyId);
  return requireImport(tenantId, propertyId, importId);
}
