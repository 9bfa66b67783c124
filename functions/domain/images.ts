import { createHash } from 'node:crypto';

/**
 * Listing photos (imports, uploads and their limits; docs/photos.md): what a file must be, where
 * it is kept, and the rules of a listing's gallery. Pure: the services fetch, store and persist.
 */

/** The largest photo accepted, by import or upload (the published limit: 20 MB). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Redirects an import follows (the published limit), each checked again. */
export const MAX_IMPORT_REDIRECTS = 3;
/** An import's whole fetch (every hop, headers and body) must finish within this. */
export const IMPORT_TIMEOUT_MS = 30_000;
/** At most this many photos per listing. */
export const MAX_GALLERY_IMAGES = 100;
/** How long a minted upload URL stays valid. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

/** The accepted formats, by the MIME type read from the file's magic bytes, with their key extension. */
export const IMAGE_TYPES = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': 'gif',
} as const;

export type ImageContentType = keyof typeof IMAGE_TYPES;

export const IMAGE_CONTENT_TYPES = Object.keys(IMAGE_TYPES) as ImageContentType[];

export function isImageContentType(value: string): value is ImageContentType {
  return Object.hasOwn(IMAGE_TYPES, value);
}

export const IMPORT_STATUSES = ['pending', 'ready', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/**
 * Why an import (or a confirmed upload, which is imported from the bucket) failed (`failure_reason`).
 * `http_error` comes with the answer's status.
 */
export const IMPORT_FAILURE_REASONS = [
  'invalid_url',
  'blocked_address',
  'too_many_redirects',
  'http_error',
  'timeout',
  'too_large',
  'unsupported_type',
  'unreachable',
  // The listing's gallery filled up (100 photos) while the file was being fetched.
  'gallery_full',
  // The file declares more than MAX_INPUT_PIXELS pixels (a decompression bomb, or a panorama too large).
  'too_many_pixels',
  // The file says it is an image but cannot be decoded whole (truncated, corrupt).
  'unreadable_image',
] as const;
export type ImportFailureReason = (typeof IMPORT_FAILURE_REASONS)[number];

/** A name-based UUID of `parts` (RFC 9562 version 8): the same parts always name the same id. */
function nameBasedId(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\n')).digest('hex');
  // RFC 9562 layout: version 8 (custom, name-based), variant 10xx.
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The id of the import of `url` into a listing: derived from the three (a name-based UUID), so the
 * same URL on the same listing always names the same import and a repeat finds it by key.
 */
export function importIdFor(tenantId: string, propertyId: string, url: string): string {
  return nameBasedId(tenantId, propertyId, url);
}

/**
 * The id of the import that a confirmed upload becomes: derived from the upload's key, so confirming
 * the same key again finds it. (An import's URL is https, so no upload key names an import's id.)
 */
export function uploadImportIdFor(tenantId: string, propertyId: string, objectKey: string): string {
  return nameBasedId(tenantId, propertyId, `upload:${objectKey}`);
}

/**
 * The id of the gallery photo that attempt `attempt` of an import makes: derived, so a redelivered
 * message renders the same files under the same keys (sharp's output is the same for the same input)
 * and finds the photo its first delivery added; a later attempt (the photo was deleted and imported
 * again) is a new photo with new keys.
 */
export function imageIdFor(importId: string, attempt: number): string {
  return nameBasedId(importId, String(attempt));
}

/** Where a listing's uploads land before they are confirmed (a lifecycle rule expires them after a day). */
export function uploadPrefix(tenantId: string, propertyId: string): string {
  return `uploads/${tenantId}/${propertyId}/`;
}

/**
 * An upload's object key. It carries the size the upload was minted for (the presigned PUT signs
 * Content-Length, so S3 refuses another size): the confirm step checks the object against it.
 */
export function uploadKey(tenantId: string, propertyId: string, uploadId: string, sizeBytes: number): string {
  return `${uploadPrefix(tenantId, propertyId)}${uploadId}-${sizeBytes}`;
}

const UPLOAD_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([1-9]\d{0,8})$/;

/** The size an upload key of this listing was minted for, or undefined when the key is not one. */
export function mintedUploadSize(tenantId: string, propertyId: string, key: string): number | undefined {
  const prefix = uploadPrefix(tenantId, propertyId);
  if (!key.startsWith(prefix)) return undefined;
  const match = UPLOAD_NAME.exec(key.slice(prefix.length));
  return match ? Number(match[2]) : undefined;
}

/** Where a listing's served files live: its renditions (and photos stored before renditions existed). */
export function galleryPrefix(tenantId: string, propertyId: string): string {
  return `images/${tenantId}/${propertyId}/`;
}

/**
 * Where a photo was kept and served before renditions existed (`admin photos render` moves it under
 * `originals/` and serves renditions instead).
 */
export function imageKey(
  tenantId: string,
  propertyId: string,
  imageId: string,
  contentType: ImageContentType,
): string {
  return `${galleryPrefix(tenantId, propertyId)}${imageId}.${IMAGE_TYPES[contentType]}`;
}

/**
 * Where an uploaded or fetched original is kept: under `originals/`, which no distribution may read
 * (the bucket policy grants CloudFront `images/*` alone), so it is never served.
 */
export function originalKey(
  tenantId: string,
  propertyId: string,
  id: string,
  contentType: ImageContentType,
): string {
  return `originals/${tenantId}/${propertyId}/${id}.${IMAGE_TYPES[contentType]}`;
}

/**
 * The widths (px) of a photo's renditions, for cards (320, 640), galleries (1024, 1600) and full
 * screen (2048): the widths below the photo's own, and its own up to the largest (never upscaled).
 */
export const RENDITION_WIDTHS = [320, 640, 1024, 1600, 2048] as const;
/** The width of the JPEG fallback, which is also the photo's default `url`. */
export const FALLBACK_WIDTH = 1024;
/**
 * The most pixels a photo may have (width × height, as its header declares): 100 megapixels, above
 * any camera's still photo and below what would let one file take the worker's memory (libvips is
 * told the same limit, `limitInputPixels`, so a file that lies in its header is refused while decoding).
 */
export const MAX_INPUT_PIXELS = 100_000_000;
/**
 * How renditions are cached, by browsers and the CDN: a year, never revalidated. Their keys hold a
 * hash of their bytes, so a rendition's URL never names other bytes.
 */
export const RENDITION_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The formats of the renditions: WebP in every width, one JPEG as the fallback. */
export const RENDITION_TYPES = { 'image/webp': 'webp', 'image/jpeg': 'jpg' } as const;
export type RenditionType = keyof typeof RENDITION_TYPES;

/** What renditions a photo of `width` px (once oriented) gets: WebP widths, and the JPEG's. */
export function renditionPlan(width: number): { webp: number[]; jpeg: number } {
  const largest = Math.min(width, RENDITION_WIDTHS[RENDITION_WIDTHS.length - 1] ?? width);
  const webp = [...new Set([...RENDITION_WIDTHS.filter((w) => w < largest), largest])];
  return { webp, jpeg: Math.min(FALLBACK_WIDTH, largest) };
}

/**
 * A rendition's file name within the listing's `images/` prefix: the photo's id, the width and the
 * first 16 hex digits of the SHA-256 of its bytes (content-addressed: new bytes are a new name).
 */
export function renditionFile(
  imageId: string,
  width: number,
  sha256Hex: string,
  type: RenditionType,
): string {
  return `${imageId}-${width}w-${sha256Hex.slice(0, 16)}.${RENDITION_TYPES[type]}`;
}

/** One file made from a photo, as stored on the gallery photo (its URL is derived, see `renditionUrl`). */
export interface Rendition {
  /** The file name under the listing's `images/` prefix (`renditionFile`). */
  file: string;
  width: number;
  height: number;
  contentType: RenditionType;
  sizeBytes: number;
}

/**
 * The URL of rendition `file` of a photo whose default `url` is given: renditions sit beside the
 * default one (the same prefix), so only their names are stored on the listing.
 */
export function renditionUrl(defaultUrl: string, file: string): string {
  return `${defaultUrl.slice(0, defaultUrl.lastIndexOf('/') + 1)}${encodeURIComponent(file)}`;
}

/**
 * Where a gallery photo stands: `processing` from its confirm until the worker has made its renditions
 * (nothing of it is served yet: no url, no renditions), then `ready`.
 */
export const IMAGE_STATUSES = ['processing', 'ready'] as const;
export type ImageStatus = (typeof IMAGE_STATUSES)[number];

/** One photo of a listing's gallery, as stored on the listing. */
export interface GalleryImage {
  id: string;
  /**
   * `processing` while a confirmed upload's renditions are made; absent once ready (and on every photo
   * stored before this state existed). While processing, `url`, `width`, `height` are placeholders
   * never shown ('' and 0), `contentType` and `sizeBytes` those of the original.
   */
  status?: 'processing';
  /**
   * The object key of the original: under `originals/` (private) for a photo with renditions; under
   * `images/` (served as it is) for a photo stored before renditions existed.
   */
  key: string;
  /**
   * The default file: the JPEG rendition (`FALLBACK_WIDTH` wide, or the photo's width when smaller),
   * or the original of a photo without renditions. `url`, `width`, `height`, `contentType` and
   * `sizeBytes` are that file's; it is served by the CDN in AWS, the local S3 locally.
   */
  url: string;
  width: number;
  height: number;
  contentType: ImageContentType;
  sizeBytes: number;
  sortOrder: number;
  isPrimary: boolean;
  createdAt: string;
  /** Every rendition (the default one included), WebP by width then the JPEG; absent before renditions. */
  renditions?: Rendition[];
  /** The import that brought it (a re-delivered import message finds it here). */
  importId?: string;
  /** The upload key it was confirmed from (confirming the same key again returns it). */
  uploadKey?: string;
}

/** Where a gallery photo stands (a stored photo without `status` is ready). */
export function imageStatus(image: GalleryImage): ImageStatus {
  return image.status === 'processing' ? 'processing' : 'ready';
}

/** Every object a gallery photo keeps in the bucket: its original and its renditions. */
export function photoKeys(tenantId: string, propertyId: string, image: GalleryImage): string[] {
  const prefix = galleryPrefix(tenantId, propertyId);
  return [image.key, ...(image.renditions ?? []).map((r) => `${prefix}${r.file}`)];
}

/**
 * The CDN paths to invalidate once a photo's files are deleted: one wildcard path over its renditions
 * (each begins with the photo's id), and the served original of a photo stored before renditions.
 */
export function photoCdnPaths(tenantId: string, propertyId: string, image: GalleryImage): string[] {
  const prefix = galleryPrefix(tenantId, propertyId);
  return [
    ...(image.renditions?.length ? [`/${prefix}${image.id}-*`] : []),
    ...(image.key.startsWith(prefix) ? [`/${image.key}`] : []),
  ];
}

/** A gallery change the rules refuse; the service turns it into a 422. */
export class GalleryRuleError extends Error {
  override readonly name = 'GalleryRuleError';
  /** The request field at fault. */
  readonly field: string;
  /** The ValidationError type. */
  readonly type: string;
  constructor(field: string, message: string, type: string) {
    super(message);
    this.field = field;
    this.type = type;
  }
}

/** The gallery in display order: sort_order, then created_at (then id, so the order is total). */
export function orderGallery(images: readonly GalleryImage[]): GalleryImage[] {
  return [...images].sort(
    (a, b) => a.sortOrder - b.sortOrder || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
}

/** Exactly one cover once there is a photo: `coverId`, or the first in display order. */
function withCover(images: readonly GalleryImage[], coverId?: string): GalleryImage[] {
  const ordered = orderGallery(images);
  const cover = coverId ?? ordered.find((i) => i.isPrimary)?.id ?? ordered[0]?.id;
  return ordered.map((i) => ({ ...i, isPrimary: i.id === cover }));
}

/**
 * Adds a photo. Without `sortOrder` it goes last; the first photo becomes the cover, and
 * `isPrimary` makes it the cover. A full gallery refuses it.
 */
export function addToGallery(
  images: readonly GalleryImage[],
  image: Omit<GalleryImage, 'sortOrder' | 'isPrimary'>,
  options: { sortOrder?: number | undefined; isPrimary?: boolean | undefined },
): GalleryImage[] {
  if (images.length >= MAX_GALLERY_IMAGES) {
    throw new GalleryRuleError(
      'property_id',
      `A listing holds at most ${MAX_GALLERY_IMAGES} images; delete one first`,
      'too_many_images',
    );
  }
  const sortOrder = options.sortOrder ?? Math.max(-1, ...images.map((i) => i.sortOrder)) + 1;
  const added: GalleryImage = { ...image, sortOrder, isPrimary: false };
  return withCover([...images, added], options.isPrimary ? added.id : undefined);
}

/**
 * Edits a photo: a new sort_order reorders the gallery; `isPrimary: true` moves the cover to it.
 * The cover cannot be unset directly (there is always one): make another photo the cover instead.
 */
export function editInGallery(
  images: readonly GalleryImage[],
  imageId: string,
  change: { sortOrder?: number | undefined; isPrimary?: boolean | undefined },
): GalleryImage[] {
  const target = images.find((i) => i.id === imageId);
  if (!target) throw new Error(`no image ${imageId} in the gallery`);
  if (change.isPrimary === false && target.isPrimary) {
    throw new GalleryRuleError(
      'is_primary',
      'A listing always has one cover: set is_primary true on another image to move it',
      'cover_required',
    );
  }
  const edited = images.map((i) =>
    i.id === imageId && change.sortOrder !== undefined ? { ...i, sortOrder: change.sortOrder } : i,
  );
  return withCover(edited, change.isPrimary ? imageId : undefined);
}

/** Removes a photo; when it was the cover, the next photo in display order becomes the cover. */
export function removeFromGallery(images: readonly GalleryImage[], imageId: string): GalleryImage[] {
  return withCover(images.filter((i) => i.id !== imageId));
}
