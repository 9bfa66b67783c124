import * as z from 'zod/mini';
import type { ImageImportRecord } from '../data/listing-images.ts';
import {
  FALLBACK_WIDTH,
  type GalleryImage,
  IMAGE_CONTENT_TYPES,
  IMAGE_STATUSES,
  IMPORT_FAILURE_REASONS,
  IMPORT_STATUSES,
  imageStatus,
  MAX_IMAGE_BYTES,
  RENDITION_TYPES,
  RENDITION_WIDTHS,
  renditionUrl,
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

const RENDITION_TYPE_LIST = Object.keys(RENDITION_TYPES) as (keyof typeof RENDITION_TYPES)[];

export const RenditionOut = z.object({
  url: z
    .string()
    .check(
      z.describe('Where this file is served (the CDN), cached a year (immutable)'),
      z.meta({ format: 'uri' }),
    ),
  width: z.number().check(z.int(), z.describe('Its width in pixels: the `w` descriptor of srcset')),
  height: z.number().check(z.int()),
  type: z
    .enum(RENDITION_TYPE_LIST)
    .check(z.describe('The `type` of a <source> (image/webp), or the JPEG fallback')),
});

export const ImageOut = z.object({
  id: Uuid,
  status: z
    .enum(IMAGE_STATUSES)
    .check(
      z.describe(
        'processing from the confirm of an upload until its renditions are made (off the request path, usually seconds): in the gallery, editable (PATCH, DELETE) by its id, but nothing of it is served yet (url, width, height, content_type and size_bytes null, renditions empty), and the site API does not list it. ready: served, with its renditions. A file that turns out unreadable while processing leaves the gallery; GET …/images:import/{image_id} then says why (failed, failure_reason)',
      ),
    ),
  url: z
    .nullable(z.string().check(z.meta({ format: 'uri' })))
    .check(
      z.describe(
        `A sensible default to show: the JPEG rendition (${FALLBACK_WIDTH} px wide, or the photo's width when smaller). A photo stored before renditions existed and not yet rendered has no renditions; url is then its original file. null while processing (the original is never served)`,
      ),
    ),
  width: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('Of the file at url (its ratio is the photo’s); null while processing')),
  height: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('Of the file at url; null while processing')),
  content_type: z
    .nullable(z.enum(IMAGE_CONTENT_TYPES))
    .check(z.describe('Of the file at url; null while processing')),
  size_bytes: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('Of the file at url; null while processing')),
  sort_order: z.number().check(z.int()),
  is_primary: z.boolean().check(z.describe('The cover: exactly one photo of a gallery')),
  created_at: z.string(),
  renditions: z
    .array(RenditionOut)
    .check(
      z.describe(
        `The photo in several widths (${RENDITION_WIDTHS.join(', ')} px, never wider than the photo), EXIF orientation applied and every piece of metadata (GPS included) removed: WebP in every width, by width, then the JPEG fallback. For srcset, take the entries of one type and join \`\${url} \${width}w\` with commas: <picture><source type="image/webp" srcset="…"><img src="{url}" width height></picture>`,
      ),
    ),
});
export type ImageOutput = z.infer<typeof ImageOut>;

export const ImageImportOut = z.object({
  id: Uuid,
  status: z
    .enum(IMPORT_STATUSES)
    .check(
      z.describe(
        'pending while the file is fetched and its renditions made (an import by URL is not in the gallery yet; a confirmed upload is, as a processing image whose id is this import’s); ready once it is; failed with failure_reason',
      ),
    ),
  url: z.nullable(z.string()).check(z.describe('The URL imported; null for a confirmed upload')),
  object_key: z
    .nullable(z.string())
    .check(z.describe('The upload confirmed (POST …/images); null for an import by URL')),
  image: z.nullable(ImageOut).check(z.describe('The gallery photo, when ready (null once it was deleted)')),
  failure_reason: z.nullable(z.enum(IMPORT_FAILURE_REASONS)).check(z.describe('Why it failed, when failed')),
  failure_status: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('The HTTP status the server answered, for failure_reason http_error')),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ImageUploadOut = z.object({
  url: z
    .string()
    .check(
      z.describe('PUT the file here, with exactly the headers below, within 15 minutes'),
      z.meta({ format: 'uri' }),
    ),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()),
  object_key: z
    .string()
    .check(z.describe('Send it to POST …/images to add the uploaded photo to the gallery')),
  expires_at: z.string(),
});

/**
 * A gallery photo → its public shape (the site API and the secret API show the same object; the site
 * API lists ready photos only).
 */
export function toImageOut(image: GalleryImage): ImageOutput {
  if (imageStatus(image) === 'processing') {
    return {
      id: image.id,
      status: 'processing',
      url: null,
      width: null,
      height: null,
      content_type: null,
      size_bytes: null,
      sort_order: image.sortOrder,
      is_primary: image.isPrimary,
      created_at: image.createdAt,
      renditions: [],
    };
  }
  return {
    id: image.id,
    status: 'ready',
    url: image.url,
    width: image.width,
    height: image.height,
    content_type: image.contentType,
    size_bytes: image.sizeBytes,
    sort_order: image.sortOrder,
    is_primary: image.isPrimary,
    created_at: image.createdAt,
    renditions: (image.renditions ?? []).map((r) => ({
      url: renditionUrl(image.url, r.file),
      width: r.width,
      height: r.height,
      type: r.contentType,
    })),
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
    url: record.url ?? null,
    object_key: record.objectKey ?? null,
    image: record.status === 'ready' && image ? toImageOut(image) : null,
    failure_reason: record.status === 'failed' ? (record.failureReason ?? null) : null,
    failure_status: record.status === 'failed' ? (record.failureStatus ?? null) : null,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}
