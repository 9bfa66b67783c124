import { randomUUID } from 'node:crypto';
import { galleryOf, saveGallery } from '../data/listing-images.ts';
import { type ListingRecord, requireListing } from '../data/listings.ts';
import {
  addToGallery,
  editInGallery,
  type GalleryImage,
  GalleryRuleError,
  IMAGE_CONTENT_TYPES,
  type ImageContentType,
  imageKey,
  isImageContentType,
  MAX_IMAGE_BYTES,
  mintedUploadSize,
  orderGallery,
  removeFromGallery,
  UPLOAD_URL_TTL_SECONDS,
  uploadKey,
} from '../domain/images.ts';
import { NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { PhotoChangedError, type PresignedUpload, photoStore } from '../kernel/ports/photo-store.ts';
import { inspectImage } from './image-files.ts';

/**
 * A listing's gallery (interface §4.2): uploads minted and confirmed, photos reordered, the cover
 * moved, photos deleted. The gallery is kept on the listing, so each change is one conditional
 * write of the listing and emits `property.updated` with `images` (the stream derives it).
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
 * Confirms an upload into the gallery: the object must be under this listing's upload prefix, of the
 * size it was minted for, and one of the five formats by its magic bytes (else 422, and a file of
 * another kind is deleted). Exactly the version checked is copied under the listing's images prefix
 * (422 `upload_changed` when it was replaced meanwhile) and the upload removed. Confirming the same
 * key again returns the same image (`created: false`).
 */
export async function confirmUpload(
  tenantId: string,
  propertyId: string,
  writer: string,
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
  const already = galleryOf(property).find((i) => i.uploadKey === input.object_key);
  if (already) return { image: already, created: false };

  const store = photoStore();
  const stored = await store.head(input.object_key);
  if (!stored) {
    // A concurrent confirm of the same key may have moved it into the gallery meanwhile.
    const fresh = galleryOf(await requireListing(tenantId, propertyId, { consistent: true })).find(
      (i) => i.uploadKey === input.object_key,
    );
    if (fresh) return { image: fresh, created: false };
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
  const imageId = randomUUID();
  let key: string;
  let inspected: Awaited<ReturnType<typeof inspectImage>>;
  try {
    inspected = await inspectImage(await read(INSPECT_BYTES));
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
    key = imageKey(tenantId, propertyId, imageId, inspected.contentType);
    await store.copy(input.object_key, key, inspected.contentType, stored.version);
  } catch (error) {
    if (!(error instanceof PhotoChangedError)) throw error;
    // A concurrent confirm of the same key may have moved it into the gallery and removed it.
    const fresh = galleryOf(await requireListing(tenantId, propertyId)).find(
      (i) => i.uploadKey === input.object_key,
    );
    if (fresh) return { image: fresh, created: false };
    throw keyProblem(
      'The uploaded file was replaced or removed while it was being confirmed; confirm it again',
      'upload_changed',
    );
  }
  const checked = inspected;
  const outcome = await changeGallery<{ image: GalleryImage; created: boolean }>(
    tenantId,
    propertyId,
    writer,
    (images) => {
      const same = images.find((i) => i.uploadKey === input.object_key);
      if (same) return { unchanged: { image: same, created: false } };
      const next = addToGallery(
        images,
        {
          id: imageId,
          key,
          url: store.publicUrl(key),
          width: checked.width,
          height: checked.height,
          contentType: checked.contentType,
          sizeBytes: stored.sizeBytes,
          createdAt: new Date().toISOString(),
          uploadKey: input.object_key,
        },
        { sortOrder: input.sort_order, isPrimary: input.is_primary },
      );
      return { images: next, result: { image: imageOrNotFound(next, imageId), created: true } };
    },
  ).catch(async (error: unknown) => {
    await store.delete(key);
    throw error;
  });
  if (!outcome.created) await store.delete(key);
  await store.delete(input.object_key);
  return outcome;
}

/** Stores a fetched photo in the gallery (the import worker); the same import never adds it twice. */
export async function addImportedImage(
  tenantId: string,
  propertyId: string,
  importId: string,
  file: { body: Buffer; contentType: ImageContentType; width: number; height: number },
  wishes: { isPrimary?: boolean | undefined; sortOrder?: number | undefined },
): Promise<GalleryImage> {
  const store = photoStore();
  // Strongly consistent: a redelivered import must see the image its first delivery saved.
  const existing = galleryOf(await requireListing(tenantId, propertyId, { consistent: true })).find(
    (i) => i.importId === importId,
  );
  if (existing) return existing;
  const imageId = randomUUID();
  const key = imageKey(tenantId, propertyId, imageId, file.contentType);
  await store.put(key, file.body, file.contentType);
  const image = await changeGallery<GalleryImage>(tenantId, propertyId, 'photo import', (images) => {
    const same = images.find((i) => i.importId === importId);
    if (same) return { unchanged: same };
    const next = addToGallery(
      images,
      {
        id: imageId,
        key,
        url: store.publicUrl(key),
        width: file.width,
        height: file.height,
        contentType: file.contentType,
        sizeBytes: file.body.length,
        createdAt: new Date().toISOString(),
        importId,
      },
      wishes,
    );
    return { images: next, result: imageOrNotFound(next, imageId) };
  });
  if (image.id !== imageId) await store.delete(key);
  return image;
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

/** DELETE an image: off the gallery (the next becomes the cover), and its file deleted. */
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
  await photoStore().delete(removed.key);
}

export type { ImageContentType };
