import { createHash } from 'node:crypto';

/**
 * Listing photos (interface §2.5, §3.5, §4.2, §8): what a file must be, where it is kept, and the
 * rules of a listing's gallery. Pure: the services fetch, store and persist.
 */

/** The largest photo accepted, by import or upload (interface §8). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Redirects an import follows, each checked again (interface §8). */
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

/** Why an import failed (`failure_reason`). `http_error` comes with the answer's status. */
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
] as const;
export type ImportFailureReason = (typeof IMPORT_FAILURE_REASONS)[number];

/**
 * The id of the import of `url` into a listing: derived from the three (a name-based UUID), so the
 * same URL on the same listing always names the same import and a repeat finds it by key.
 */
export function importIdFor(tenantId: string, propertyId: string, url: string): string {
  const hex = createHash('sha256').update(`${tenantId}\n${propertyId}\n${url}`).digest('hex');
  // RFC 9562 layout: version 8 (custom, name-based), variant 10xx.
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
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

/** Where a gallery photo is kept (and served from): under the Tenant's and the listing's prefix. */
export function imageKey(
  tenantId: string,
  propertyId: string,
  imageId: string,
  contentType: ImageContentType,
): string {
  return `images/${tenantId}/${propertyId}/${imageId}.${IMAGE_TYPES[contentType]}`;
}

/** One photo of a listing's gallery, as stored on the listing. */
export interface GalleryImage {
  id: string;
  /** The object key in the photo bucket. */
  key: string;
  /** Where the photo is served (the CDN in AWS, the local S3 locally). */
  url: string;
  width: number;
  height: number;
  contentType: ImageContentType;
  sizeBytes: number;
  sortOrder: number;
  isPrimary: boolean;
  createdAt: string;
  /** The import that brought it (a re-delivered import message finds it here). */
  importId?: string;
  /** The upload key it was confirmed from (confirming the same key again returns it). */
  uploadKey?: string;
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
