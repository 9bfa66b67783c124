import * as z from 'zod/mini';
import type { ImageImportRecord } from '../data/listing-images.ts';
import {
  type GalleryImage,
  IMAGE_CONTENT_TYPES,
  IMPORT_FAILURE_REASONS,
  IMPORT_STATUSES,
  MAX_IMAGE_BYTES,
} from '../domain/images.ts';
import { integerBetween, Uuid } from './shared.ts';

export const ImagePath = z.object({ property_id: Uuid, image_id: Uuid });
export const ImportPath = z.object({ property_id: Uuid, import_id: Uuid });

const SortOrder = integerBetween(0, 100_000).check(
  z.describe('Position in the gallery (ascending; ties by created_at). Omitted on add: last'),
);
const IsPrimary = z
  .boolean({ message: 'Must be true or false' })
  .check(z.describe('true makes this photo the cover (the previous cover stops being one)'));

export const ImageImportIn = z.object({
  url: z
    .string({ message: 'Must be a string' })
    .check(
      z.trim(),
      z.minLength(1, 'Must not be empty'),
      z.maxLength(2048),
      z.describe(
        'https, on a public host (no IP literal or local name outside the public ranges, no userinfo)',
      ),
    ),
  is_primary: z.optional(IsPrimary),
  sort_order: z.optional(SortOrder),
});

export const ImageUploadIn = z.object({
  content_type: z.enum(IMAGE_CONTENT_TYPES, {
    message: `Must be one of ${IMAGE_CONTENT_TYPES.join(', ')}`,
  }),
  size_bytes: integerBetween(1, MAX_IMAGE_BYTES).check(
    z.describe('The exact size of the file to upload, in bytes (at most 20 MB)'),
  ),
});

export const ImageConfirmIn = z.object({
  object_key: z
    .string({ message: 'Must be a string' })
    .check(
      z.minLength(1, 'Must not be empty'),
      z.maxLength(1024),
      z.describe('The object_key of an upload minted for this listing, after the PUT'),
    ),
  is_primary: z.optional(IsPrimary),
  sort_order: z.optional(SortOrder),
});

export const ImagePatchIn = z.object({
  sort_order: z.optional(SortOrder),
  is_primary: z.optional(
    IsPrimary.check(z.describe('true makes this photo the cover; the cover cannot be unset, only moved')),
  ),
});

export const ImageOut = z.object({
  id: Uuid,
  url: z.string().check(z.describe('Where the photo is served (the CDN)')),
  width: z.number().check(z.int()),
  height: z.number().check(z.int()),
  content_type: z.enum(IMAGE_CONTENT_TYPES),
  size_bytes: z.number().check(z.int()),
  sort_order: z.number().check(z.int()),
  is_primary: z.boolean().check(z.describe('The cover: exactly one photo of a gallery')),
  created_at: z.string(),
});
export type ImageOutput = z.infer<typeof ImageOut>;

export const ImageImportOut = z.object({
  id: Uuid,
  status: z.enum(IMPORT_STATUSES),
  url: z.string(),
  image: z.nullable(ImageOut).check(z.describe('The gallery photo, when ready (null once it was deleted)')),
  failure_reason: z.nullable(z.enum(IMPORT_FAILURE_REASONS)).check(z.describe('Why it failed, when failed')),
  failure_status: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('The HTTP status the server answered, for failure_reason http_error')),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ImageUploadOut = z.object({
  url: z.string().check(z.describe('PUT the file here, with exactly the headers below, within 15 minutes')),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()),
  object_key: z
    .string()
    .check(z.describe('Send it to POST …/images to add the uploaded photo to the gallery')),
  expires_at: z.string(),
});

/** A gallery photo → its public shape. */
export function toImageOut(image: GalleryImage): ImageOutput {
  return {
    id: image.id,
    url: image.url,
    width: image.width,
    height: image.height,
    content_type: image.contentType,
    size_bytes: image.sizeBytes,
    sort_order: image.sortOrder,
    is_primary: image.isPrimary,
    created_at: image.createdAt,
  };
}

/** An import record (and the gallery it may have landed in) → its public shape. */
export function toImageImportOut(
  record: ImageImportRecord,
  gallery: readonly GalleryImage[],
): z.infer<typeof ImageImportOut> {
  const image = record.imageId ? gallery.find((i) => i.id === record.imageId) : undefined;
  return {
    id: record.id,
    status: record.status,
    url: record.url,
    image: record.status === 'ready' && image ? toImageOut(image) : null,
    failure_reason: record.status === 'failed' ? (record.failureReason ?? null) : null,
    failure_status: record.status === 'failed' ? (record.failureStatus ?? null) : null,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
