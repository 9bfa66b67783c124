import { gunzipSync, gzipSync } from 'node:zlib';
import { markCatalogueRebuildDue } from '../data/catalogue-rebuilds.ts';
import { Listing } from '../data/entities/listing.ts';
import type { ListingRecord } from '../data/listings.ts';
import { catalogueStore } from '../kernel/ports/catalogue-store.ts';

/**
 * The persisted catalogue of a Tenant (the catalogue snapshot): its live listings as the site and lead
 * matches read them, in one gzipped object per Tenant (`catalogue/<tenantId>.json.gz`), so a cold
 * function loads it with one S3 GET instead of reading the whole listing index. It carries the
 * watermark (the largest `updatedAt`) of the last change it holds: the loader then runs the usual
 * catch-up Query from there, so a change made after the snapshot is still seen at the next request.
 *
 * Format 2 is laid out for a cold load of 50,000 listings in well under a second (format 1, one JSON
 * document of every listing, took 2.4 s: decoding and parsing 50 MB of text into 50,000 objects).
 * After gunzip the buffer holds one line of JSON, the header: the watermark and one row per listing
 * with only what searches, sorts, similar listings, locations, Agent counts and lead matches read
 * (INDEXED; Place paths and amenity sets as indexes into tables of their distinct values), and where
 * the rest lies in the buffer. Then, per listing, the JSON of its other fields (texts, gallery…). A
 * load parses the header alone; an entry's JSON is parsed when an answer presents it or a `q` search
 * first reads its text. A rebuild copies the bytes of unchanged entries.
 */

/** Bumped on any change of the format: a snapshot of another version is not read (the table is). */
export const CATALOGUE_SNAPSHOT_VERSION = 2;

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

/**
 * The fields a snapshot's header holds per listing, read without parsing the entry: the filters,
 * sorts and rules of domain/site-search.ts and domain/criteria.ts, the slug lookup and Agent counts.
 */
const INDEXED = [
  'id',
  'slug',
  'createdAt',
  'updatedAt',
  'listingType',
  'price',
  'rentPrice',
  'currency',
  'propertyType',
  'bedrooms',
  'bathrooms',
  'isFeatured',
  'placeCode',
  'agentId',
  'placePath',
  'amenities',
] as const satisfies readonly (keyof CatalogueListing)[];
/** Header rows hold these two as indexes into the header's tables of distinct values. */
const PLACE_PATH_COLUMN = INDEXED.indexOf('placePath');
const AMENITIES_COLUMN = INDEXED.indexOf('amenities');

/** Entries parsed lately, kept so that presenting one reads its fields from one parse (bounded). */
const PARSED_KEPT = 500;
const parsedEntries = new Map<SnapshotEntry, CatalogueListing>();
/** Entry JSON parses since the container started (tests, the bench: a load parses none). */
let entryParses = 0;
export function snapshotEntryParses(): number {
  return entryParses;
}

/**
 * A listing of a loaded snapshot: the INDEXED fields as its own, the others (texts, gallery…) read
 * through getters that parse its entry's JSON from the snapshot buffer on first use.
 */
class SnapshotEntry {
  readonly #bytes: Buffer;
  readonly #start: number;
  readonly #length: number;

  constructor(fields: Record<string, unknown>, bytes: Buffer, start: number, length: number) {
    Object.assign(this, fields);
    this.#bytes = bytes;
    this.#start = start;
    this.#length = length;
  }

  /** The whole entry, parsed (kept among the last PARSED_KEPT parsed). */
  full(): CatalogueListing {
    let parsed = parsedEntries.get(this);
    if (parsed) {
      parsedEntries.delete(this);
    } else {
      const rest = JSON.parse(this.#bytes.toString('utf8', this.#start, this.#start + this.#length));
      entryParses++;
      parsed = { ...this, ...rest } as CatalogueListing;
      if (parsedEntries.size >= PARSED_KEPT) {
        parsedEntries.delete(parsedEntries.keys().next().value as SnapshotEntry);
      }
    }
    parsedEntries.set(this, parsed);
    return parsed;
  }

  /** The JSON of the fields the header does not hold, as stored. */
  json(): Buffer {
    return this.#bytes.subarray(this.#start, this.#start + this.#length);
  }

  /** Bytes of the snapshot's buffer it stands for. */
  get storedBytes(): number {
    return this.#length;
  }

  /** JSON.stringify of an entry is the whole listing, as the other entries of a catalogue. */
  toJSON(): CatalogueListing {
    return this.full();
  }
}

let entryGettersDefined = false;
/** Getters for every stored field of a listing the header does not hold. */
function defineEntryGetters(): void {
  if (entryGettersDefined) return;
  entryGettersDefined = true;
  const own = new Set<string>([...INDEXED, ...OMITTED]);
  for (const field of Object.keys(Listing.schema.attributes)) {
    if (own.has(field)) continue;
    Object.defineProperty(SnapshotEntry.prototype, field, {
      get(this: SnapshotEntry) {
        return (this.full() as Record<string, unknown>)[field];
      },
      configurable: true,
    });
  }
}

/** A catalogue entry loaded from a snapshot (its fields beyond INDEXED parsed when first read). */
export function isSnapshotEntry(listing: unknown): listing is SnapshotEntry {
  return listing instanceof SnapshotEntry;
}

/** Bytes of a snapshot's buffer the entry stands for (outside the heap, one per byte). */
export function storedEntryBytes(listing: SnapshotEntry): number {
  return listing.storedBytes;
}

/** A listing's fields beyond INDEXED, as a snapshot stores them. */
function unindexedJson(listing: CatalogueListing): Buffer {
  if (listing instanceof SnapshotEntry) return listing.json();
  const rest: Record<string, unknown> = { ...compactListing(listing) };
  for (const field of INDEXED) delete rest[field];
  return Buffer.from(JSON.stringify(rest));
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

interface SnapshotHeader {
  version: number;
  tenantId: string;
  watermark?: string | undefined;
  builtAt: string;
  /** The INDEXED names, in the order of a row's first columns. */
  indexed: string[];
  placePaths: unknown[];
  amenitySets: unknown[];
  /** Per listing: the INDEXED values (null when absent), then the byte length of its other fields' JSON. */
  rows: unknown[][];
}

const NEWLINE = Buffer.from('\n');

export function encodeSnapshot(snapshot: CatalogueSnapshot): Buffer {
  const placePaths: unknown[] = [];
  const amenitySets: unknown[] = [];
  const tableIndex = (table: unknown[], seen: Map<string, number>, value: unknown) => {
    if (value === undefined) return null;
    const key = JSON.stringify(value);
    let index = seen.get(key);
    if (index === undefined) {
      index = table.push(value) - 1;
      seen.set(key, index);
    }
    return index;
  };
  const pathIndex = new Map<string, number>();
  const amenityIndex = new Map<string, number>();
  const chunks: Buffer[] = [];
  const rows = snapshot.listings.map((listing) => {
    const json = unindexedJson(listing);
    chunks.push(json);
    const values: unknown[] = INDEXED.map((field) => (listing as Record<string, unknown>)[field] ?? null);
    values[PLACE_PATH_COLUMN] = tableIndex(placePaths, pathIndex, listing.placePath);
    values[AMENITIES_COLUMN] = tableIndex(amenitySets, amenityIndex, listing.amenities);
    return [...values, json.length];
  });
  const header: SnapshotHeader = {
    version: snapshot.version,
    tenantId: snapshot.tenantId,
    watermark: snapshot.watermark,
    builtAt: snapshot.builtAt,
    indexed: [...INDEXED],
    placePaths,
    amenitySets,
    rows,
  };
  return gzipSync(Buffer.concat([Buffer.from(JSON.stringify(header)), NEWLINE, ...chunks]));
}

/**
 * The snapshot in `body`, checked as far as a reader relies on it (version, Tenant, watermark, each
 * row's id, slug, times and byte ranges); the entries' other fields are the ones the builder wrote.
 * `textLength` is the decompressed size, which the loaded catalogue holds (the memory estimate).
 */
export function decodeSnapshot(
  tenantId: string,
  body: Buffer,
): { snapshot: CatalogueSnapshot; textLength: number } {
  let bytes: Buffer;
  let header: SnapshotHeader;
  try {
    bytes = gunzipSync(body);
    const end = bytes.indexOf(0x0a);
    header = JSON.parse(bytes.toString('utf8', 0, end < 0 ? bytes.length : end)) as SnapshotHeader;
  } catch (error) {
    throw new CatalogueSnapshotUnreadableError(tenantId, (error as Error).message);
  }
  const h = header as Partial<SnapshotHeader> | null;
  if (!h || typeof h !== 'object') throw new CatalogueSnapshotUnreadableError(tenantId, 'not an object');
  if (h.version !== CATALOGUE_SNAPSHOT_VERSION) {
    throw new CatalogueSnapshotUnreadableError(tenantId, `version ${String(h.version)}`);
  }
  if (h.tenantId !== tenantId) throw new CatalogueSnapshotUnreadableError(tenantId, 'another tenant');
  if (h.watermark !== undefined && typeof h.watermark !== 'string') {
    throw new CatalogueSnapshotUnreadableError(tenantId, 'bad watermark');
  }
  if (
    !Array.isArray(h.rows) ||
    !Array.isArray(h.placePaths) ||
    !Array.isArray(h.amenitySets) ||
    JSON.stringify(h.indexed) !== JSON.stringify(INDEXED)
  ) {
    throw new CatalogueSnapshotUnreadableError(tenantId, 'malformed header');
  }
  defineEntryGetters();
  const entries = bytes.subarray(bytes.indexOf(0x0a) + 1);
  const listings: CatalogueListing[] = [];
  let offset = 0;
  for (const row of h.rows) {
    const jsonLength = row[INDEXED.length];
    const [id, slug, createdAt, updatedAt] = row;
    if (
      typeof id !== 'string' ||
      typeof slug !== 'string' ||
      typeof createdAt !== 'string' ||
      typeof updatedAt !== 'string' ||
      typeof jsonLength !== 'number' ||
      offset + jsonLength > entries.length
    ) {
      throw new CatalogueSnapshotUnreadableError(tenantId, 'malformed listings');
    }
    // Every indexed field set, absent ones to undefined, in one order: all entries then share one
    // shape, and a search's property reads over 50,000 of them stay fast (monomorphic).
    const fields: Record<string, unknown> = {};
    for (let i = 0; i < INDEXED.length; i++) {
      const value = row[i];
      if (value === null || value === undefined) {
        fields[INDEXED[i] as string] = undefined;
        continue;
      }
      fields[INDEXED[i] as string] =
        i === PLACE_PATH_COLUMN
          ? h.placePaths[value as number]
          : i === AMENITIES_COLUMN
            ? h.amenitySets[value as number]
            : value;
    }
    listings.push(new SnapshotEntry(fields, entries, offset, jsonLength) as unknown as CatalogueListing);
    offset += jsonLength;
  }
  return {
    snapshot: {
      version: CATALOGUE_SNAPSHOT_VERSION,
      tenantId,
      watermark: h.watermark,
      builtAt: String(h.builtAt),
      listings,
    },
    textLength: bytes.length,
  };
}

/** The Tenant's stored snapshot, or undefined when there is none; CatalogueSnapshotUnreadableError when unusable. */
export async function readSnapshot(
  tenantId: string,
): Promise<{ snapshot: CatalogueSnapshot; textLength: number; storedBytes: number } | undefined> {
  const stored = await catalogueStore().read(tenantId);
  if (!stored) return undefined;
  return { ...decodeSnapshot(tenantId, stored.body), storedBytes: stored.body.length };
}

/**
 * Stores the snapshot. With `replacing` (the version of the stored snapshot a rebuild started from,
 * null when there was none), only if that is still the stored one: `written` is false, and nothing
 * is written, when another rebuild rewrote it meanwhile. Without it, it replaces whatever is there.
 * `storedBytes` is the compressed size.
 */
export async function writeSnapshot(
  snapshot: CatalogueSnapshot,
  replacing?: string | null,
): Promise<{ written: boolean; storedBytes: number }> {
  const body = encodeSnapshot(snapshot);
  const written = await catalogueStore().write(snapshot.tenantId, body, replacing);
  return { written, storedBytes: body.length };
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
