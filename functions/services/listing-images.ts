import { randomUUID } from 'node:crypto';
import {
  finishImageImport,
  galleryOf,
  type ImageImportRecord,
  insertImageImport,
  saveGallery,
} from '../data/listing-images.ts';
import { type ListingRecord, requireListing } from '../data/listings.ts';
import {
  addToGallery,
  editInGallery,
  type GalleryImage,
  GalleryRuleError,
  IMAGE_CONTENT_TYPES,
  IMAGE_TYPES,
  type ImageContentType,
  isImageContentType,
  MAX_GALLERY_IMAGES,
  MAX_IMAGE_BYTES,
  MAX_INPUT_PIXELS,
  mintedUploadSize,
  orderGallery,
  originalKey,
  photoCdnPaths,
  photoKeys,
  removeFromGallery,
  UPLOAD_URL_TTL_SECONDS,
  uploadImportIdFor,
  uploadKey,
} from '../domain/images.ts';
import { NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { PhotoChangedError, type PresignedUpload, photoStore } from '../kernel/ports/photo-store.ts';
import { queue } from '../kernel/ports/queue.ts';
import { inspectImage } from './image-files.ts';
import {
  CONSISTENT,
  enqueueImport,
  type PhotoPurgeMessage,
  requeueIfLost,
  requireImport,
} from './image-imports.ts';

/**
 * A listing's gallery (docs/photos.md): uploads minted and confirmed, photos reordered, the cover
 * moved, photos deleted. The gallery is kept on the listing, so each change is one conditional
 * write of the listing and emits `property.updated` with `images` (the stream derives it). A photo
 * joins the gallery once its renditions are made, by the photo import worker
 * (services/photo-processing.ts): a confirmed upload is an import until then.
 */

/** Concurrent gallery changes of one listing retry on a fresh read before giving up. */
const GALLERY_ATTEMPTS = 8;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * 15 * attempt));

/** How much of an upload is read to check it: the magic bytes and the dimensions are near the start. */
const INSPECT_BYTES = 512 * 1024;

function asValidationError(error: unknown): never {
  if (error instanceof GalleryRuleError) {
    throw RequestValidationError.single(['body', error.field], error.message, error.type);
  }
  throw error;
}

/**
 * Applies `change` to the gallery of a listing, with the listing's optimistic lock, and returns what
 * `change` chose to return along with the saved gallery. `change` may decide nothing needs writing.
 */
export async function changeGallery<R>(
  tenantId: string,
  propertyId: string,
  writer: string,
  change: (
    images: GalleryImage[],
    property: ListingRecord,
  ) => { images: GalleryImage[]; result: R } | { unchanged: R },
): Promise<R> {
  for (let attempt = 1; attempt <= GALLERY_ATTEMPTS; attempt++) {
    // Strongly consistent: the save is conditioned on this version, and a retry must see the newer one.
    const property = await requireListing(tenantId, propertyId, { consistent: true });
    let decided: ReturnType<typeof change>;
    try {
      decided = change(galleryOf(property), property);
    } catch (error) {
      asValidationError(error);
    }
    if ('unchanged' in decided) return decided.unchanged;
    const now = new Date(Math.max(Date.now(), Date.parse(property.updatedAt) + 1)).toISOString();
    if ((await saveGallery(property, decided.images, writer, now)) === 'ok') return decided.result;
    await pause(attempt);
  }
  throw new Error('The gallery kept changing while it was being edited');
}

function imageOrNotFound(images: readonly GalleryImage[], imageId: string): GalleryImage {
  const image = images.find((i) => i.id === imageId);
  if (!image) throw new NotFoundError('No image with this id on this listing');
  return image;
}

export interface UploadRequest {
  content_type: string;
  size_bytes: number;
}

/** Mints a presigned PUT for one photo of this listing (the file goes straight to the bucket). */
export async function mintUpload(
  tenantId: string,
  propertyId: string,
  input: UploadRequest,
): Promise<PresignedUpload & { objectKey: string }> {
  if (!isImageContentType(input.content_type)) {
    throw RequestValidationError.single(
      ['body', 'content_type'],
      `Must be one of ${IMAGE_CONTENT_TYPES.join(', ')}`,
      'unsupported_type',
    );
  }
  // Strongly consistent: a listing created a moment ago must take photos at once.
  await requireListing(tenantId, propertyId, { consistent: true });
  const objectKey = uploadKey(tenantId, propertyId, randomUUID(), input.size_bytes);
  const signed = await photoStore().presignPut(
    objectKey,
    { contentType: input.content_type, sizeBytes: input.size_bytes },
    UPLOAD_URL_TTL_SECONDS,
  );
  return { ...signed, objectKey };
}

export interface ConfirmRequest {
  object_key: string;
  is_primary?: boolean | undefined;
  sort_order?: number | undefined;
}

const keyProblem = (msg: string, type: string) =>
  RequestValidationError.single(['body', 'object_key'], msg, type);

/**
 * Confirms an upload: the object must be under this listing's upload prefix, of the size it was
 * minted for, one of the five formats by its magic bytes and at most MAX_INPUT_PIXELS by its header
 * (else 422, and the file is deleted). Exactly the version checked is kept as the photo's original
 * under `originals/` (422 `upload_changed` when it was replaced meanwhile), the upload removed, and the
 * photo joins the gallery at once as a `processing` image (`created`), whose renditions the worker
 * makes off the request path from an import of the upload (the image's id is the import's): the worker
 * then makes that same image ready in place, or removes it and ends the import failed with its reason
 * (a file that cannot be decoded). Confirming the same key again returns the image as it is
 * (`created: false`); 422 when it failed or was deleted since.
 */
export async function confirmUpload(
  tenantId: string,
  propertyId: string,
  input: ConfirmRequest,
): Promise<{ image: GalleryImage; created: boolean }> {
  const property = await requireListing(tenantId, propertyId);
  const mintedSize = mintedUploadSize(tenantId, propertyId, input.object_key);
  if (mintedSize === undefined) {
    throw keyProblem(
      'Must be an object_key minted by POST …/images/uploads for this listing',
      'invalid_object_key',
    );
  }
  const id = uploadImportIdFor(tenantId, propertyId, input.object_key);
  const confirmedBefore = async () => {
    const record = await getImport(tenantId, propertyId, id);
    if (!record) return undefined;
    await requeueIfLost(record, new Date().toISOString());
    return { image: await imageOfConfirm(record), created: false };
  };
  const already = await confirmedBefore();
  if (already) return already;
  if (galleryOf(property).length >= MAX_GALLERY_IMAGES) {
    throw keyProblem(
      `A listing holds at most ${MAX_GALLERY_IMAGES} images; delete one first`,
      'too_many_images',
    );
  }

  const store = photoStore();
  const stored = await store.head(input.object_key);
  if (!stored) {
    // A concurrent confirm of the same key may have taken it meanwhile.
    const taken = await confirmedBefore();
    if (taken) return taken;
    throw keyProblem(
      'No uploaded file under this key (never uploaded, or expired after a day)',
      'upload_missing',
    );
  }
  if (stored.sizeBytes !== mintedSize || stored.sizeBytes > MAX_IMAGE_BYTES) {
    await store.delete(input.object_key);
    throw keyProblem(
      `The uploaded file has ${stored.sizeBytes} bytes, not the ${mintedSize} it was minted for`,
      'size_mismatch',
    );
  }
  // Every read and the copy name the version that was sized (its ETag): bytes PUT again to the key
  // meanwhile (the presigned URL stays valid) are never the ones checked or copied.
  const read = (bytes: number) => store.readStart(input.object_key, bytes, stored.version);
  let kept: string;
  try {
    let inspected = await inspectImage(await read(INSPECT_BYTES));
    if (!inspected && stored.sizeBytes > INSPECT_BYTES) {
      // Dimensions past the first blocks (a JPEG with a large EXIF block): read it whole.
      inspected = await inspectImage(await read(stored.sizeBytes));
    }
    if (!inspected) {
      await store.delete(input.object_key);
      throw keyProblem(
        `The file is not a JPEG, PNG, WebP, AVIF or GIF image (judged by its content); it was deleted`,
        'unsupported_type',
      );
    }
    if (inspected.width * inspected.height > MAX_INPUT_PIXELS) {
      await store.delete(input.object_key);
      throw keyProblem(
        `The image declares ${inspected.width} × ${inspected.height} pixels, more than the ${MAX_INPUT_PIXELS / 1_000_000} megapixels a photo may have; it was deleted`,
        'too_many_pixels',
      );
    }
    kept = originalKey(tenantId, propertyId, id, inspected.contentType);
    await store.copy(input.object_key, kept, inspected.contentType, stored.version);
  } catch (error) {
    if (!(error instanceof PhotoChangedError)) throw error;
    // A concurrent confirm of the same key may have taken it and removed it.
    const taken = await confirmedBefore();
    if (taken) return taken;
    throw keyProblem(
      'The uploaded file was replaced or removed while it was being confirmed; confirm it again',
      'upload_changed',
    );
  }
  const now = new Date().toISOString();
  const inserted = await insertImageImport({
    tenantId,
    propertyId,
    id,
    source: { objectKey: input.object_key, originalKey: kept },
    isPrimary: input.is_primary,
    sortOrder: input.sort_order,
    now,
  });
  const record = await requireImport(tenantId, propertyId, id, CONSISTENT);
  // A concurrent confirm of the same key recorded it first: the same original, the same image.
  if (!inserted) return { image: await imageOfConfirm(record), created: false };
  let image: GalleryImage;
  try {
    image = await addProcessingImage(record, stored.sizeBytes);
  } catch (error) {
    // The gallery filled up meanwhile: nothing of the upload is kept but the upload itself.
    if (error instanceof RequestValidationError) {
      await finishImageImport(
        { tenantId, propertyId, id },
        record.attempt,
        {
          status: 'failed',
          failureReason: 'gallery_full',
          failureDetail: error.issues.map((i) => i.msg).join('; '),
        },
        new Date().toISOString(),
      );
      await store.delete(kept);
    }
    throw error;
  }
  await enqueueImport(record);
  await store.delete(input.object_key);
  return { image, created: true };
}

/** The content type of an original, from its key's extension. */
function originalType(key: string): ImageContentType {
  const extension = key.slice(key.lastIndexOf('.') + 1);
  const found = IMAGE_CONTENT_TYPES.find((t) => IMAGE_TYPES[t] === extension);
  return found ?? 'image/jpeg';
}

/**
 * Puts a confirmed upload's photo in the gallery as `processing` (its id the import's), unless it is
 * there already (a repeated or concurrent confirm). One gallery write: one `property.updated`.
 */
async function addProcessingImage(record: ImageImportRecord, sizeBytes?: number): Promise<GalleryImage> {
  const { tenantId, propertyId, id } = record;
  const key = record.originalKey ?? '';
  let size = sizeBytes;
  if (size === undefined) size = (await photoStore().head(key))?.sizeBytes ?? 0;
  const bytes = size;
  return changeGallery<GalleryImage>(tenantId, propertyId, 'photo upload', (images) => {
    const same = images.find((i) => i.importId === id);
    if (same) return { unchanged: same };
    const next = addToGallery(
      images,
      {
        id,
        status: 'processing',
        key,
        url: '',
        width: 0,
        height: 0,
        contentType: originalType(key),
        sizeBytes: bytes,
        createdAt: record.createdAt,
        renditions: [],
        importId: id,
        ...(record.objectKey ? { uploadKey: record.objectKey } : {}),
      },
      { isPrimary: record.isPrimary, sortOrder: record.sortOrder },
    );
    const added = next.find((i) => i.id === id);
    if (!added) throw new Error('the photo added is not in the gallery');
    return { images: next, result: added };
  });
}

/**
 * What a confirm of an upload confirmed before answers: its gallery image as it is now (processing or
 * ready). A pending import whose image is not in the gallery yet (the first confirm still running, or
 * stopped before adding it) adds it. A failed one, or one whose photo was deleted since, is a 422.
 */
async function imageOfConfirm(record: ImageImportRecord): Promise<GalleryImage> {
  const listing = await requireListing(record.tenantId, record.propertyId, CONSISTENT);
  const image = galleryOf(listing).find((i) => i.importId === record.id);
  if (image) return image;
  if (record.status === 'pending') return addProcessingImage(record);
  if (record.status === 'failed') {
    throw keyProblem(
      record.failureDetail ?? 'The uploaded file could not be made a photo',
      record.failureReason ?? 'unreadable_image',
    );
  }
  throw keyProblem(
    'The photo of this upload was deleted since; mint an upload and PUT the file again',
    'upload_missing',
  );
}

/** The import a confirmed upload became, if any (strongly consistent: a repeat follows the first at once). */
async function getImport(tenantId: string, propertyId: string, id: string) {
  return requireImport(tenantId, propertyId, id, CONSISTENT).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
}

/** PATCH an image: a new sort_order, or is_primary true to make it the cover. */
export async function editImage(
  tenantId: string,
  propertyId: string,
  imageId: string,
  writer: string,
  change: { sort_order?: number | undefined; is_primary?: boolean | undefined },
): Promise<GalleryImage> {
  return changeGallery<GalleryImage>(tenantId, propertyId, writer, (images) => {
    const current = imageOrNotFound(images, imageId);
    const next = editInGallery(images, imageId, {
      sortOrder: change.sort_order,
      isPrimary: change.is_primary,
    });
    const edited = imageOrNotFound(next, imageId);
    const same = orderGallery(images).every(
      (i, n) =>
        next[n]?.id === i.id && next[n]?.isPrimary === i.isPrimary && next[n]?.sortOrder === i.sortOrder,
    );
    return same ? { unchanged: current } : { images: next, result: edited };
  });
}

/**
 * DELETE an image: off the gallery (the next becomes the cover), its files deleted (the original and
 * every rendition), and their CDN paths handed to the photo queue, whose worker invalidates them.
 */
export async function deleteImage(
  tenantId: string,
  propertyId: string,
  imageId: string,
  writer: string,
): Promise<void> {
  const removed = await changeGallery<GalleryImage>(tenantId, propertyId, writer, (images) => {
    const image = imageOrNotFound(images, imageId);
    return { images: removeFromGallery(images, imageId), result: image };
  });
  const keys = photoKeys(tenantId, propertyId, removed);
  const store = photoStore();
  await Promise.all(keys.map((key) => store.delete(key)));
  const purge: PhotoPurgeMessage = {
    type: 'purge',
    tenantId,
    propertyId,
    keys,
    paths: photoCdnPaths(tenantId, propertyId, removed),
  };
  await queue().send('images', purge);
}

export type { ImageContentType };
