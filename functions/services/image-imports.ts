import {
  finishImageImport,
  galleryOf,
  getImageImport,
  type ImageImportRecord,
  insertImageImport,
  retryImageImport,
  touchImageImportQueuedAt,
} from '../data/listing-images.ts';
import { requireListing } from '../data/listings.ts';
import {
  IMPORT_TIMEOUT_MS,
  importIdFor,
  MAX_GALLERY_IMAGES,
  MAX_IMAGE_BYTES,
  MAX_IMPORT_REDIRECTS,
} from '../domain/images.ts';
import { NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { logger } from '../kernel/logger.ts';
import { checkPublicUrl, privateUrlsAllowed } from '../kernel/net/public-address.ts';
import type { FetchPublicFileOptions } from '../kernel/net/public-file-fetch.ts';
import { queue } from '../kernel/ports/queue.ts';
import { inspectImage } from './image-files.ts';
import { addImportedImage } from './listing-images.ts';

/**
 * Photo import by URL (interface §3.5): the request is recorded as pending and its fetch queued;
 * the worker fetches through the SSRF-safe connector and ends the import ready (with its gallery
 * image) or failed (with a reason).
 */

/** What the import queue carries: one fetch attempt of one import. */
export interface ImageImportMessage {
  type: 'import';
  tenantId: string;
  propertyId: string;
  importId: string;
  attempt: number;
}

/** A pending import whose fetch was queued longer ago than this is queued again on a repeat request. */
const REQUEUE_AFTER_MS = 5 * 60_000;

export interface ImportRequest {
  url: string;
  is_primary?: boolean | undefined;
  sort_order?: number | undefined;
}

async function enqueue(record: Pick<ImageImportRecord, 'tenantId' | 'propertyId' | 'id' | 'attempt'>) {
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
        url,
        isPrimary: input.is_primary,
        sortOrder: input.sort_order,
        now,
      })
    ) {
      const record = await requireImport(tenantId, propertyId, id, CONSISTENT);
      await enqueue(record);
      return { record, created: true };
    }
    const existing = await requireImport(tenantId, propertyId, id, CONSISTENT);
    if (existing.status === 'failed' || (await photoDeleted(existing))) {
      const retry = { isPrimary: input.is_primary, sortOrder: input.sort_order };
      if (!(await retryImageImport(existing, retry, now))) continue;
      const record = await requireImport(tenantId, propertyId, id, CONSISTENT);
      await enqueue(record);
      return { record, created: true };
    }
    if (existing.status === 'pending' && Date.now() - Date.parse(existing.queuedAt) > REQUEUE_AFTER_MS) {
      // Its message may have been lost (the queue refused it, or it was dead-lettered): queue it again;
      // the worker ends an attempt once, so a duplicate does no harm.
      await touchImageImportQueuedAt(existing, now);
      await enqueue(existing);
    }
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
const CONSISTENT = { consistent: true } as const;

async function requireImport(
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

/** How the worker fetches; tests pass their own dispatcher. */
export type ImportFetchSettings = Pick<FetchPublicFileOptions, 'dispatcher' | 'allowPrivate'>;

/**
 * Runs one fetch attempt (the worker). A message of an attempt that is no longer pending (ended, or
 * replaced by a retry) is dropped. Every outcome of the file itself ends the import; only a storage
 * or table error throws (the message is retried).
 */
export async function runImport(message: ImageImportMessage, settings: Partial<ImportFetchSettings> = {}) {
  // Strongly consistent: the message was queued right after the write (an eventually consistent
  // read could miss the import and drop the message).
  const record = await getImageImport(message.tenantId, message.propertyId, message.importId, {
    consistent: true,
  });
  if (!record || record.status !== 'pending' || record.attempt !== message.attempt) return;
  const key = { tenantId: record.tenantId, propertyId: record.propertyId, id: record.id };
  const now = () => new Date().toISOString();
  const fail = async (
    failureReason: NonNullable<ImageImportRecord['failureReason']>,
    detail: string,
    status?: number,
  ) => {
    // Ids and the reason code only: the detail may quote the URL, whose query can hold a token.
    logger.info('photo import failed', {
      tenantId: record.tenantId,
      propertyId: record.propertyId,
      importId: record.id,
      failureReason,
      ...(status !== undefined ? { failureStatus: status } : {}),
    });
    await finishImageImport(
      key,
      record.attempt,
      { status: 'failed', failureReason, failureStatus: status, failureDetail: detail },
      now(),
    );
  };

  // undici (the HTTP client, ~520 KB) is loaded by the import run alone: the routes that only check
  // a URL or read an import's state never parse it at cold start.
  const { fetchPublicFile } = await import('../kernel/net/public-file-fetch.ts');
  const fetched = await fetchPublicFile(record.url, {
    maxBytes: MAX_IMAGE_BYTES,
    maxRedirects: MAX_IMPORT_REDIRECTS,
    timeoutMs: IMPORT_TIMEOUT_MS,
    allowPrivate: settings.allowPrivate ?? privateUrlsAllowed(),
    ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
  });
  if (!fetched.ok) return fail(fetched.reason, fetched.detail, fetched.status);
  const inspected = await inspectImage(fetched.body);
  if (!inspected)
    return fail('unsupported_type', 'not a JPEG, PNG, WebP, AVIF or GIF image (by its content)');

  let imageId: string;
  try {
    const image = await addImportedImage(
      record.tenantId,
      record.propertyId,
      record.id,
      { body: fetched.body, ...inspected },
      { isPrimary: record.isPrimary, sortOrder: record.sortOrder },
    );
    imageId = image.id;
  } catch (error) {
    // The gallery filled up while the file was fetched (the request itself checks it first).
    if (error instanceof RequestValidationError) {
      return fail('gallery_full', error.issues.map((i) => i.msg).join('; '));
    }
    throw error;
  }
  await finishImageImport(key, record.attempt, { status: 'ready', imageId }, now());
}
