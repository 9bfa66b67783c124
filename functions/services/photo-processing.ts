import {
  finishImageImport,
  galleryOf,
  getImageImport,
  type ImageImportRecord,
} from '../data/listing-images.ts';
import { queryAllListings, requireListing } from '../data/listings.ts';
import {
  addToGallery,
  type GalleryImage,
  galleryPrefix,
  IMPORT_TIMEOUT_MS,
  type ImageContentType,
  imageIdFor,
  MAX_IMAGE_BYTES,
  MAX_IMPORT_REDIRECTS,
  MAX_INPUT_PIXELS,
  originalKey,
  RENDITION_CACHE_CONTROL,
  type Rendition,
  removeFromGallery,
} from '../domain/images.ts';
import { RequestValidationError } from '../kernel/errors.ts';
import { logger } from '../kernel/logger.ts';
import { privateUrlsAllowed } from '../kernel/net/public-address.ts';
import type { FetchPublicFileOptions } from '../kernel/net/public-file-fetch.ts';
import { photoCdn } from '../kernel/ports/photo-cdn.ts';
import { photoStore } from '../kernel/ports/photo-store.ts';
import { inspectImage } from './image-files.ts';
import type { ImageImportMessage, PhotoPurgeMessage } from './image-imports.ts';
import { changeGallery } from './listing-images.ts';
import { type RenderedFile, renderPhoto } from './photo-renditions.ts';

/**
 * What the photo import worker does (functions/workers/image-import.ts), off the request path: an
 * import's file fetched (by URL) or read back (a confirmed upload's original), its renditions made
 * and stored, the photo added to the gallery (by URL) or its processing image made ready in place (a
 * confirmed upload), the import ended; a deleted photo's CDN paths
 * invalidated; and the photos stored before renditions existed given theirs (`admin photos render`).
 */

/** How the worker fetches; tests pass their own dispatcher. */
export type ImportFetchSettings = Pick<FetchPublicFileOptions, 'dispatcher' | 'allowPrivate'>;

type Refusal = { ok: false; reason: 'too_many_pixels' | 'unreadable_image' | 'gallery_full'; detail: string };

/** The stored form of rendered files (their bytes are in the bucket). */
function renditionsOf(files: readonly RenderedFile[]): Rendition[] {
  return files.map(({ file, width, height, contentType, sizeBytes }) => ({
    file,
    width,
    height,
    contentType,
    sizeBytes,
  }));
}

/** The gallery fields of a rendered photo: its default file (the JPEG) and every rendition. */
function servedFields(tenantId: string, propertyId: string, files: readonly RenderedFile[]) {
  const fallback = files.find((f) => f.contentType === 'image/jpeg') ?? files[0];
  if (!fallback) throw new Error('a rendered photo has no files');
  return {
    url: photoStore().publicUrl(`${galleryPrefix(tenantId, propertyId)}${fallback.file}`),
    width: fallback.width,
    height: fallback.height,
    contentType: fallback.contentType as ImageContentType,
    sizeBytes: fallback.sizeBytes,
    renditions: renditionsOf(files),
  };
}

/** Stores rendered files under the listing's `images/` prefix, each cached for good. */
async function storeRenditions(tenantId: string, propertyId: string, files: readonly RenderedFile[]) {
  const store = photoStore();
  const prefix = galleryPrefix(tenantId, propertyId);
  await Promise.all(
    files.map((f) => store.put(`${prefix}${f.file}`, f.body, f.contentType, RENDITION_CACHE_CONTROL)),
  );
}

async function deleteAll(keys: readonly string[]) {
  const store = photoStore();
  await Promise.all(keys.map((key) => store.delete(key)));
}

/**
 * Makes a photo's renditions and adds it to the gallery: attempt `attempt` of import `importId`, from
 * `body` (whose original is kept at `keptAt`, or stored there now under `originals/`). A redelivered
 * attempt finds the photo its first delivery added. The worker calls it, and `npm start` for the demo
 * photos. A file that cannot be rendered, or a gallery that filled up meanwhile, is a refusal, and
 * nothing of the photo is kept but an original kept before (the caller decides about it).
 */
export async function importPhoto(
  tenantId: string,
  propertyId: string,
  source: {
    importId: string;
    attempt: number;
    body: Buffer;
    contentType: ImageContentType;
    keptAt?: string;
    uploadKey?: string;
  },
  wishes: { isPrimary?: boolean | undefined; sortOrder?: number | undefined },
): Promise<{ ok: true; image: GalleryImage } | Refusal> {
  const { importId, attempt, body, contentType } = source;
  // Strongly consistent: a redelivered attempt must see the photo its first delivery added.
  const listing = await requireListing(tenantId, propertyId, { consistent: true });
  const existing = galleryOf(listing).find((i) => i.importId === importId);
  if (existing) return { ok: true, image: existing };
  const imageId = imageIdFor(importId, attempt);
  const rendered = await renderPhoto(imageId, body);
  if (!rendered.ok) return rendered;
  const original = source.keptAt ?? originalKey(tenantId, propertyId, importId, contentType);
  if (!source.keptAt) await photoStore().put(original, body, contentType);
  await storeRenditions(tenantId, propertyId, rendered.files);
  const prefix = galleryPrefix(tenantId, propertyId);
  const renditionKeys = rendered.files.map((f) => `${prefix}${f.file}`);
  try {
    const image = await changeGallery<GalleryImage>(tenantId, propertyId, 'photo import', (images) => {
      const same = images.find((i) => i.importId === importId);
      if (same) return { unchanged: same };
      const next = addToGallery(
        images,
        {
          id: imageId,
          key: original,
          ...servedFields(tenantId, propertyId, rendered.files),
          createdAt: new Date().toISOString(),
          importId,
          ...(source.uploadKey ? { uploadKey: source.uploadKey } : {}),
        },
        wishes,
      );
      const added = next.find((i) => i.id === imageId);
      if (!added) throw new Error('the photo added is not in the gallery');
      return { images: next, result: added };
    });
    // Another attempt's photo holds the place: this attempt's renditions are its own keys.
    if (image.id !== imageId) await deleteAll(renditionKeys);
    return { ok: true, image };
  } catch (error) {
    // The gallery filled up while the file was fetched (the request itself checks it first).
    if (!(error instanceof RequestValidationError)) throw error;
    await deleteAll(source.keptAt ? renditionKeys : [original, ...renditionKeys]);
    return { ok: false, reason: 'gallery_full', detail: error.issues.map((i) => i.msg).join('; ') };
  }
}

/**
 * Makes the renditions of a confirmed upload's `processing` image (id `imageId`) and makes that same
 * image ready in place: its place and cover flag as they are now (PATCHes made meanwhile kept). When
 * the image was deleted meanwhile, nothing is stored (the renditions made are deleted).
 */
async function renderProcessingImage(
  tenantId: string,
  propertyId: string,
  imageId: string,
  body: Buffer,
): Promise<{ ok: true } | Extract<Refusal, { ok: false }>> {
  const rendered = await renderPhoto(imageId, body);
  if (!rendered.ok) return rendered;
  await storeRenditions(tenantId, propertyId, rendered.files);
  const prefix = galleryPrefix(tenantId, propertyId);
  const renditionKeys = rendered.files.map((f) => `${prefix}${f.file}`);
  const updated = await changeGallery<boolean>(tenantId, propertyId, 'photo renditions', (images) => {
    const image = images.find((i) => i.id === imageId);
    if (!image) return { unchanged: false };
    if (image.status !== 'processing') return { unchanged: true };
    const { status: _processing, ...rest } = image;
    const ready: GalleryImage = { ...rest, ...servedFields(tenantId, propertyId, rendered.files) };
    return { images: images.map((i) => (i.id === imageId ? ready : i)), result: true };
  });
  // Deleted while its renditions were made: they go too (the route deleted the original).
  if (!updated) await deleteAll(renditionKeys);
  return { ok: true };
}

/** Removes a confirmed upload's image from the gallery while it is still processing (it failed). */
async function dropProcessingImage(tenantId: string, propertyId: string, imageId: string): Promise<void> {
  await changeGallery<void>(tenantId, propertyId, 'photo renditions', (images) => {
    const image = images.find((i) => i.id === imageId);
    if (image?.status !== 'processing') return { unchanged: undefined };
    return { images: removeFromGallery(images, imageId), result: undefined };
  });
}

/**
 * Runs one attempt of an import (the worker). A message of an attempt that is no longer pending
 * (ended, or replaced by a retry) is dropped. Every outcome of the file itself ends the import; only a
 * storage or table error throws (the message is retried).
 */
export async function runImport(message: ImageImportMessage, settings: Partial<ImportFetchSettings> = {}) {
  // Strongly consistent: the message was queued right after the write (an eventually consistent
  // read could miss the import and drop the message).
  const record = await getImageImport(message.tenantId, message.propertyId, message.importId, {
    consistent: true,
  });
  if (record?.status !== 'pending' || record.attempt !== message.attempt) return;
  const key = { tenantId: record.tenantId, propertyId: record.propertyId, id: record.id };
  const now = () => new Date().toISOString();
  const fail = async (
    failureReason: NonNullable<ImageImportRecord['failureReason']>,
    detail: string,
    status?: number,
  ) => {
    // The reason code and the ids: the detail may quote the URL (its query tokens, its credentials).
    logger.info('photo import failed', {
      tenantId: record.tenantId,
      propertyId: record.propertyId,
      importId: record.id,
      failureReason,
      ...(status !== undefined ? { failureStatus: status } : {}),
    });
    // A confirmed upload that cannot be made a photo keeps nothing: its processing image leaves the
    // gallery (this import, read by the image's id, says why), its original is deleted.
    if (record.objectKey) await dropProcessingImage(record.tenantId, record.propertyId, record.id);
    if (record.originalKey) await photoStore().delete(record.originalKey);
    await finishImageImport(
      key,
      record.attempt,
      { status: 'failed', failureReason, failureStatus: status, failureDetail: detail },
      now(),
    );
  };

  // A confirmed upload is in the gallery already, processing; deleted meanwhile, nothing is made.
  if (record.objectKey) {
    const listing = await requireListing(record.tenantId, record.propertyId, { consistent: true });
    const image = galleryOf(listing).find((i) => i.importId === record.id);
    if (image?.status !== 'processing') {
      if (!image && record.originalKey) await photoStore().delete(record.originalKey);
      await finishImageImport(key, record.attempt, { status: 'ready', imageId: record.id }, now());
      return;
    }
  }

  let body: Buffer;
  if (record.originalKey) {
    const kept = await photoStore().read(record.originalKey);
    if (!kept) return fail('unreadable_image', 'The uploaded file is no longer stored');
    body = kept;
  } else {
    // undici (the HTTP client, ~520 KB) is loaded by the import run alone.
    const { fetchPublicFile } = await import('../kernel/net/public-file-fetch.ts');
    const fetched = await fetchPublicFile(record.url ?? '', {
      maxBytes: MAX_IMAGE_BYTES,
      maxRedirects: MAX_IMPORT_REDIRECTS,
      timeoutMs: IMPORT_TIMEOUT_MS,
      allowPrivate: settings.allowPrivate ?? privateUrlsAllowed(),
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
    });
    if (!fetched.ok) return fail(fetched.reason, fetched.detail, fetched.status);
    body = fetched.body;
  }
  const inspected = await inspectImage(body);
  if (!inspected)
    return fail('unsupported_type', 'not a JPEG, PNG, WebP, AVIF or GIF image (by its content)');
  if (inspected.width * inspected.height > MAX_INPUT_PIXELS) {
    return fail(
      'too_many_pixels',
      `${inspected.width} × ${inspected.height} pixels: more than ${MAX_INPUT_PIXELS / 1_000_000} megapixels`,
    );
  }
  if (record.objectKey) {
    const made = await renderProcessingImage(record.tenantId, record.propertyId, record.id, body);
    if (!made.ok) return fail(made.reason, made.detail);
    await finishImageImport(key, record.attempt, { status: 'ready', imageId: record.id }, now());
    return;
  }
  const outcome = await importPhoto(
    record.tenantId,
    record.propertyId,
    {
      importId: record.id,
      attempt: record.attempt,
      body,
      contentType: inspected.contentType,
      ...(record.originalKey ? { keptAt: record.originalKey } : {}),
      ...(record.objectKey ? { uploadKey: record.objectKey } : {}),
    },
    { isPrimary: record.isPrimary, sortOrder: record.sortOrder },
  );
  if (!outcome.ok) return fail(outcome.reason, outcome.detail);
  await finishImageImport(key, record.attempt, { status: 'ready', imageId: outcome.image.id }, now());
}

/**
 * A deleted photo, after the route deleted its files: deleted again (harmless), then its CDN paths
 * invalidated. A CDN that is busy throws, and the queue tries the message again later.
 */
export async function runPurge(message: PhotoPurgeMessage): Promise<void> {
  await deleteAll(message.keys);
  await photoCdn().invalidate(message.paths);
}

/** What `admin photos render` did. */
export interface RenderStoredReport {
  listings: number;
  /** Photos without renditions found. */
  photos: number;
  rendered: number;
  /** Photos whose file is missing, or cannot be rendered, with why (they keep being served as they are). */
  skipped: { propertyId: string; imageId: string; reason: string }[];
}

/**
 * Gives the renditions to the photos of a Tenant stored before renditions existed, listing by listing:
 * each photo's served original is read, rendered, kept under `originals/`; the gallery then takes the
 * renditions (one write per listing, for the photos still there as they were), and the old file is
 * deleted and its CDN path invalidated. A photo with renditions is skipped, so a run stopped halfway
 * resumes where it stopped; a rendition made twice has the same key (its bytes' hash).
 */
export async function renderStoredPhotos(
  tenantId: string,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<RenderStoredReport> {
  const listings = await queryAllListings(tenantId);
  const todo = listings
    .map((listing) => ({
      listing,
      // A processing photo gets its renditions from the worker, not here.
      legacy: galleryOf(listing).filter((i) => !i.renditions?.length && i.status !== 'processing'),
    }))
    .filter((l) => l.legacy.length > 0);
  const total = todo.reduce((n, l) => n + l.legacy.length, 0);
  const report: RenderStoredReport = { listings: todo.length, photos: total, rendered: 0, skipped: [] };
  const store = photoStore();
  let done = 0;
  progress(0, total);
  for (const { listing, legacy } of todo) {
    const { tenantId: t, id: propertyId } = listing;
    const made = new Map<string, { oldKey: string; original: string; files: RenderedFile[] }>();
    for (const image of legacy) {
      const skip = (reason: string) => report.skipped.push({ propertyId, imageId: image.id, reason });
      const body = await store.read(image.key);
      if (!body) skip('its file is missing from the bucket');
      else {
        const rendered = await renderPhoto(image.id, body);
        if (!rendered.ok) skip(`${rendered.reason}: ${rendered.detail}`);
        else {
          const original = originalKey(t, propertyId, image.id, image.contentType);
          await store.put(original, body, image.contentType);
          await storeRenditions(t, propertyId, rendered.files);
          made.set(image.id, { oldKey: image.key, original, files: rendered.files });
        }
      }
      progress(++done, total);
    }
    if (made.size === 0) continue;
    const updated = await changeGallery<string[]>(t, propertyId, 'admin photos render', (images) => {
      const ids = images
        .filter((i) => made.get(i.id)?.oldKey === i.key && !i.renditions?.length)
        .map((i) => i.id);
      if (ids.length === 0) return { unchanged: [] };
      const next = images.map((i) => {
        const m = ids.includes(i.id) ? made.get(i.id) : undefined;
        return m ? { ...i, key: m.original, ...servedFields(t, propertyId, m.files) } : i;
      });
      return { images: next, result: ids };
    });
    const prefix = galleryPrefix(t, propertyId);
    const served: string[] = [];
    for (const [id, m] of made) {
      if (updated.includes(id)) served.push(m.oldKey);
      // Deleted or changed meanwhile: what was made for it goes.
      else await deleteAll([m.original, ...m.files.map((f) => `${prefix}${f.file}`)]);
    }
    // The old files stop being served: deleted, then dropped from the CDN (one invalidation a listing).
    await deleteAll(served);
    await photoCdn().invalidate(served.map((key) => `/${key}`));
    report.rendered += served.length;
  }
  return report;
}
