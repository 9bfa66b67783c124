import type { GalleryImage } from '../domain/images.ts';
import { ImageImport } from './entities/image-import.ts';
import { Listing } from './entities/listing.ts';
import { isConditionalFailure } from './errors.ts';
import type { ListingRecord } from './listings.ts';

export type ImageImportRecord = NonNullable<Awaited<ReturnType<typeof getImageImport>>>;

/** The gallery of a listing record, as the domain rules take it. */
export function galleryOf(property: ListingRecord): GalleryImage[] {
  return (property.images ?? []) as GalleryImage[];
}

/**
 * Replaces a listing's gallery, conditioned on the listing being unchanged since it was read
 * (`updatedAt`), like every listing edit: 'stale' tells the caller to read again and retry.
 */
export async function saveGallery(
  current: ListingRecord,
  images: readonly GalleryImage[],
  updatedBy: string,
  now: string,
): Promise<'ok' | 'stale'> {
  try {
    await Listing.patch({ tenantId: current.tenantId, id: current.id })
      .set({ images: [...images], updatedAt: now, updatedBy })
      .where(({ updatedAt }, { eq }) => eq(updatedAt, current.updatedAt))
      .go({ response: 'none' });
    return 'ok';
  } catch (error) {
    if (isConditionalFailure(error)) return 'stale';
    throw error;
  }
}

/** Strongly consistent unless `consistent: false`: the worker follows the write that queued it at once. */
export async function getImageImport(
  tenantId: string,
  propertyId: string,
  id: string,
  options: { consistent?: boolean } = {},
) {
  const { data } = await ImageImport.get({ tenantId, propertyId, id }).go({
    consistent: options.consistent ?? true,
  });
  return data ?? undefined;
}

/**
 * Creates a pending import, of a URL or of a confirmed upload (its key and where its original is
 * kept); `false` when one with this id (the same URL or upload) already exists.
 */
export async function insertImageImport(record: {
  tenantId: string;
  propertyId: string;
  id: string;
  source: { url: string } | { objectKey: string; originalKey: string };
  isPrimary?: boolean | undefined;
  sortOrder?: number | undefined;
  now: string;
}): Promise<boolean> {
  try {
    await ImageImport.create({
      tenantId: record.tenantId,
      propertyId: record.propertyId,
      id: record.id,
      ...record.source,
      status: 'pending',
      attempt: 1,
      queuedAt: record.now,
      createdAt: record.now,
      updatedAt: record.now,
      ...(record.isPrimary !== undefined ? { isPrimary: record.isPrimary } : {}),
      ...(record.sortOrder !== undefined ? { sortOrder: record.sortOrder } : {}),
    }).go({ response: 'none' });
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/**
 * Puts an import back to pending as the next attempt (with the gallery wishes of the new request),
 * only if it is still in the state and attempt it was read as (failed, or ready with its photo
 * deleted since): two concurrent retries queue one.
 */
export async function retryImageImport(
  current: ImageImportRecord,
  request: { isPrimary?: boolean | undefined; sortOrder?: number | undefined },
  now: string,
): Promise<boolean> {
  const removed = ['failureReason', 'failureStatus', 'failureDetail', 'imageId'] as const;
  try {
    await ImageImport.patch({ tenantId: current.tenantId, propertyId: current.propertyId, id: current.id })
      .set({
        status: 'pending',
        attempt: current.attempt + 1,
        queuedAt: now,
        updatedAt: now,
        ...(request.isPrimary !== undefined ? { isPrimary: request.isPrimary } : {}),
        ...(request.sortOrder !== undefined ? { sortOrder: request.sortOrder } : {}),
      })
      .remove([...removed])
      .where(
        ({ status, attempt }, { eq }) => `${eq(status, current.status)} AND ${eq(attempt, current.attempt)}`,
      )
      .go({ response: 'none' });
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** Notes that the fetch of a pending import was queued again (its message was presumably lost). */
export async function touchImageImportQueuedAt(current: ImageImportRecord, now: string): Promise<void> {
  await ImageImport.patch({ tenantId: current.tenantId, propertyId: current.propertyId, id: current.id })
    .set({ queuedAt: now })
    .go({ response: 'none' });
}

/**
 * Ends attempt `attempt` of a pending import: ready with its image, or failed with a reason. Only the
 * attempt that is still pending may end it ('stale' otherwise: a newer attempt, or already ended).
 */
export async function finishImageImport(
  key: { tenantId: string; propertyId: string; id: string },
  attempt: number,
  outcome:
    | { status: 'ready'; imageId: string }
    | {
        status: 'failed';
        failureReason: NonNullable<ImageImportRecord['failureReason']>;
        failureStatus?: number | undefined;
        failureDetail: string;
      },
  now: string,
): Promise<'ok' | 'stale'> {
  try {
    await ImageImport.patch(key)
      .set({
        ...Object.fromEntries(Object.entries(outcome).filter(([, value]) => value !== undefined)),
        updatedAt: now,
      })
      .where(({ status, attempt: current }, { eq }) => `${eq(status, 'pending')} AND ${eq(current, attempt)}`)
      .go({ response: 'none' });
    return 'ok';
  } catch (error) {
    if (isConditionalFailure(error)) return 'stale';
    throw error;
  }
}
