import { gunzipSync, gzipSync } from 'node:zlib';
import { markCatalogueRebuildDue } from '../data/catalogue-rebuilds.ts';
import type { ListingRecord } from '../data/listings.ts';
import { catalogueStore } from '../kernel/ports/catalogue-store.ts';

/**
 * The persisted catalogue of a Tenant (issue 25, point 1): its live listings as the site and lead
 * matches read them, in one gzipped JSON object per Tenant (`catalogue/<tenantId>.json.gz`), so a
 * cold function loads it with one S3 GET instead of reading the whole listing index. It carries the
 * watermark (the largest `updatedAt`) of the last change it holds: the loader then runs the usual
 * catch-up Query from there, so a change made after the snapshot is still seen at the next request.
 */

/** Bumped on any change of the format: a snapshot of another version is not read (the table is). */
export const CATALOGUE_SNAPSHOT_VERSION = 1;

/**
 * What a catalogue entry leaves out of the stored listing: bookkeeping no site answer, search or
 * match reads (AI enrichment state, the never-returned price history, the import's reference,
 * manual-field marks). All optional fields, so an entry still reads as a ListingRecord. What stays
 * is what a site answer renders (texts of every language, gallery), searches and matches on.
 */
const OMITTED = [
  'priceHistory',
  'enrichmentStatus',
  'enrichmentRequestId',
  'enrichmentAttempts',
  'enrichmentError',
  'enrichedAt',
  'manualFields',
  'internalRef',
  'archivedAt',
] as const satisfies readonly (keyof ListingRecord)[];

/** A live listing as the catalogue holds it. */
export type CatalogueListing = Omit<ListingRecord, (typeof OMITTED)[number]>;

/** The listing without what the catalogue leaves out. */
export function compactListing(listing: ListingRecord | CatalogueListing): CatalogueListing {
  const entry: Record<string, unknown> = { ...listing };
  for (const field of OMITTED) delete entry[field];
  return entry as CatalogueListing;
}

export interface CatalogueSnapshot {
  version: typeof CATALOGUE_SNAPSHOT_VERSION;
  tenantId: string;
  /** The largest `updatedAt` it includes; absent when the Tenant had no listing at all. */
  watermark?: string | undefined;
  builtAt: string;
  /** Live listings, newest first. */
  listings: CatalogueListing[];
}

/** A stored snapshot that cannot be used: not gzip, not JSON, another version or Tenant, or malformed. */
export class CatalogueSnapshotUnreadableError extends Error {
  constructor(tenantId: string, reason: string) {
    super(`The catalogue snapshot of tenant ${tenantId} cannot be read: ${reason}`);
    this.name = 'CatalogueSnapshotUnreadableError';
  }
}

export function encodeSnapshot(snapshot: CatalogueSnapshot): Buffer {
  return gzipSync(JSON.stringify(snapshot));
}

/**
 * The snapshot in `body`, checked as far as a reader relies on it (version, Tenant, watermark, each
 * entry's id, slug and times); the entries' other fields are the ones the builder wrote.
 * `text` is the decompressed JSON's length, the basis of the memory estimate.
 */
export function decodeSnapshot(
  tenantId: string,
  body: Buffer,
): { snapshot: CatalogueSnapshot; textLength: number } {
  let parsed: unknown;
  let textLength: number;
  try {
    const text = gunzipSync(body).toString('utf8');
    textLength = text.length;
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CatalogueSnapshotUnreadableError(tenantId, (error as Error).message);
  }
  const s = parsed as Partial<CatalogueSnapshot> | null;
  if (!s || typeof s !== 'object') throw new CatalogueSnapshotUnreadableError(tenantId, 'not an object');
  if (s.version !== CATALOGUE_SNAPSHOT_VERSION) {
    throw new CatalogueSnapshotUnreadableError(tenantId, `version ${String(s.version)}`);
  }
  if (s.tenantId !== tenantId) throw new CatalogueSnapshotUnreadableError(tenantId, 'another tenant');
  if (s.watermark !== undefined && typeof s.watermark !== 'string') {
    throw new CatalogueSnapshotUnreadableError(tenantId, 'bad watermark');
  }
  const wellFormed = (l: unknown) => {
    const e = l as Partial<CatalogueListing> | null;
    return (
      !!e &&
      typeof e.id === 'string' &&
      typeof e.slug === 'string' &&
      typeof e.createdAt === 'string' &&
      typeof e.updatedAt === 'string'
    );
  };
  if (!Array.isArray(s.listings) || !s.listings.every(wellFormed)) {
    throw new CatalogueSnapshotUnreadableError(tenantId, 'malformed listings');
  }
  return { snapshot: s as CatalogueSnapshot, textLength };
}

/** The Tenant's stored snapshot, or undefined when there is none; CatalogueSnapshotUnreadableError when unusable. */
export async function readSnapshot(
  tenantId: string,
): Promise<{ snapshot: CatalogueSnapshot; textLength: number; storedBytes: number } | undefined> {
  const body = await catalogueStore().read(tenantId);
  if (!body) return undefined;
  return { ...decodeSnapshot(tenantId, body), storedBytes: body.length };
}

/** Stores the snapshot (replacing the Tenant's previous one); returns its compressed size. */
export async function writeSnapshot(snapshot: CatalogueSnapshot): Promise<number> {
  const body = encodeSnapshot(snapshot);
  await catalogueStore().write(snapshot.tenantId, body);
  return body.length;
}

/**
 * How long after the first change of a burst its rebuild runs: the changes of those seconds (a
 * bulk import writes 20 a second) go into one rewrite of the snapshot, and the rebuilder's schedule
 * (every minute, functions/workers.ts) adds at most its period.
 */
export const REBUILD_DEBOUNCE_MS = 30_000;

/**
 * When this container last put each Tenant's marker: a burst of records marks it once, not per
 * record. Shorter than the debounce, so the marker it remembers cannot have been removed yet (due a
 * debounce after it was put), even with the clocks of two machines a few seconds apart. A marker
 * found already there is not remembered: its rebuild may start at any moment, and a change after
 * that start needs a marker of its own.
 */
const markedAt = new Map<string, number>();
const MARK_MEMORY_MS = REBUILD_DEBOUNCE_MS / 3;

/**
 * Asks for a rebuild of the Tenant's snapshot (after a listing change, or a cold load that found
 * none usable). A conditional put, none for a while after this container put the marker: a marker
 * already there is left as it is (its rebuild, which removes it before reading, takes this change
 * in too). While another's marker waits, each call tries again: a failed conditional write, the
 * price of never leaving a change after a rebuild's start without a marker.
 */
export async function requestCatalogueRebuild(tenantId: string, now = Date.now()): Promise<void> {
  const last = markedAt.get(tenantId);
  if (last !== undefined && now - last < MARK_MEMORY_MS) return;
  if (await markCatalogueRebuildDue(tenantId, new Date(now + REBUILD_DEBOUNCE_MS).toISOString()))
    markedAt.set(tenantId, now);
}

/** Tests: forget which Tenants this container marked. */
export function forgetRebuildRequests(): void {
  markedAt.clear();
}
