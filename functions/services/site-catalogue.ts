import { type AgentRecord, listActiveAgents } from '../data/agents.ts';
import { listAreas, membersOfArea } from '../data/areas.ts';
import { type ListingRecord, queryAllListings, queryListingsUpdatedSince } from '../data/listings.ts';
import { listingStatus } from '../domain/listing.ts';
import { buildLocations, newestFirst, type SiteLocation } from '../domain/site-search.ts';
import { config } from '../kernel/config.ts';
import { logger } from '../kernel/logger.ts';
import {
  CATALOGUE_SNAPSHOT_VERSION,
  type CatalogueListing,
  type CatalogueSnapshot,
  compactListing,
  isSnapshotEntry,
  readSnapshot,
  requestCatalogueRebuild,
  storedEntryBytes,
} from './catalogue-snapshot.ts';
import {
  buildSearchColumns,
  forgetLocationBits,
  type SearchColumns,
  WordIndex,
} from './site-search-index.ts';

/**
 * The compact per-Tenant catalogue of live listings that the site reads search and lead matches
 * read, held in memory by a warm function. A cold function loads the
 * Tenant's stored snapshot (services/catalogue-snapshot.ts: one S3 GET) and falls back to reading
 * every listing only when there is no usable snapshot (then it asks for one to be built). From then
 * on it is kept current by a catch-up Query per request on the listings' (updatedAt, id) index from
 * the last change seen, less an overlap for index lag: with no change it returns nothing and costs
 * half a read unit and one round trip, and any change (new, edited, archived) shows on the next
 * request. Areas and Agents change rarely and are re-read at most every AUTH_CACHE_TTL_SECONDS
 * (≤ 60 s), the same freshness as the edge cache.
 *
 * Memory is bounded by bytes, not by a count of Tenants: the catalogues are kept least recently used
 * first within CATALOGUE_MEMORY_SHARE of the function's memory, by an estimate of their size.
 */
export const CATCH_UP_OVERLAP_MS = 5_000;

/**
 * The share of the function's memory (AWS_LAMBDA_FUNCTION_MEMORY_SIZE) the catalogues may hold: the
 * rest is the runtime, the handler's modules and the answers being built (a search's hits and JSON).
 */
export const CATALOGUE_MEMORY_SHARE = 0.4;

/**
 * Estimated bytes held per entry beyond its JSON text (counted twice: V8 may hold strings as two
 * bytes per character, and the parsed objects carry headers and property tables): its Map entries in
 * `listings` and `slugs` and the object and array headers of a typical listing.
 */
const ENTRY_OVERHEAD_BYTES = 400;

export interface Catalogue {
  tenantId: string;
  /** Live listings by id, in the order a search lists them by default (newest first). */
  listings: Map<string, CatalogueListing>;
  /** Live listings' current slugs → id. */
  slugs: Map<string, string>;
  watermark?: string | undefined;
  areas?: { id: string; kind: string; name: string; memberIds: Set<string> }[];
  agents?: AgentRecord[];
  relatedLoadedAt: number;
  /** Derived from listings and areas; dropped on any change. */
  locations?: SiteLocation[] | undefined;
  /**
   * What a search filters and sorts (services/site-search-index.ts), built by the first search of
   * this version of the listings and dropped on any change.
   */
  columns?: SearchColumns | undefined;
  /** The words `q` finds, built by the first `q` search and kept current listing by listing. */
  words?: WordIndex | undefined;
  /** Estimated bytes held by the listings and slugs (see {@link heldBytes} for the whole). */
  bytes: number;
}

/** Catalogues least recently used first (a Map keeps insertion order; a use re-inserts). */
const catalogues = new Map<string, Catalogue>();

/** What this container did with its catalogues: the bench reports it per container. */
export interface CatalogueCounters {
  /** Cold loads from a snapshot, and from the table (no usable snapshot). */
  snapshotLoads: number;
  tableLoads: number;
  /** Snapshot reads (S3 GETs), usable or not. */
  snapshotReads: number;
  /** Catalogues dropped to stay within the budget. */
  evictions: number;
}

const counters: CatalogueCounters = { snapshotLoads: 0, tableLoads: 0, snapshotReads: 0, evictions: 0 };

/** The byte budget of the in-memory catalogues: CATALOGUE_MEMORY_SHARE of the function's memory. */
export function catalogueBudgetBytes(): number {
  return Math.floor(config().AWS_LAMBDA_FUNCTION_MEMORY_SIZE * 1024 * 1024 * CATALOGUE_MEMORY_SHARE);
}

/** The container's catalogues now: how many, their estimated bytes, the budget and the counters. */
export function catalogueStats() {
  let bytes = 0;
  let listings = 0;
  for (const c of catalogues.values()) {
    bytes += heldBytes(c);
    listings += c.listings.size;
  }
  return { held: catalogues.size, listings, bytes, budgetBytes: catalogueBudgetBytes(), ...counters };
}

/** Tests and the bench: forget every catalogue and counter (a cold function). */
export function clearSiteCatalogues(): void {
  catalogues.clear();
  for (const key of Object.keys(counters) as (keyof CatalogueCounters)[]) counters[key] = 0;
}

/**
 * Estimated bytes one entry holds (see ENTRY_OVERHEAD_BYTES): a snapshot's entry its bytes in the
 * snapshot buffer (one per byte, outside the heap), one from the table its JSON counted twice.
 */
export function estimateEntryBytes(listing: CatalogueListing): number {
  return isSnapshotEntry(listing)
    ? storedEntryBytes(listing) + ENTRY_OVERHEAD_BYTES
    : JSON.stringify(listing).length * 2 + ENTRY_OVERHEAD_BYTES;
}

/** Estimated bytes a catalogue holds: listings and slugs, search columns, word index. */
export function heldBytes(c: Catalogue): number {
  return c.bytes + (c.columns?.bytes ?? 0) + (c.words?.bytes ?? 0);
}

/** A catalogue with no listing yet. */
export function emptyCatalogue(tenantId: string): Catalogue {
  return {
    tenantId,
    listings: new Map(),
    slugs: new Map(),
    relatedLoadedAt: 0,
    bytes: 0,
  };
}

/**
 * Applies listings read from the index. The catch-up's overlap reads the last few changes again on
 * every request: a version already held (same updatedAt), or a listing that is not live and was not
 * held, changes nothing, so the derived locations and search columns are kept.
 */
export function applyListings(c: Catalogue, items: readonly (ListingRecord | CatalogueListing)[]): void {
  let changed = false;
  const changedIds = new Set<string>();
  for (const p of items) {
    if (!c.watermark || p.updatedAt > c.watermark) c.watermark = p.updatedAt;
    const previous = c.listings.get(p.id);
    const live = listingStatus(p) === 'live';
    if (previous ? previous.updatedAt === p.updatedAt && live : !live) continue;
    changed = true;
    changedIds.add(p.id);
    if (previous) {
      c.slugs.delete(previous.slug);
      c.bytes -= estimateEntryBytes(previous);
    }
    c.words?.remove(p.id);
    if (live) {
      const entry = compactListing(p);
      c.listings.set(p.id, entry);
      c.slugs.set(p.slug, p.id);
      c.bytes += estimateEntryBytes(entry);
      c.words?.add(entry);
    } else {
      c.listings.delete(p.id);
    }
  }
  if (changed) {
    c.locations = undefined;
    c.columns = undefined;
    c.listings = newestFirstMap(c.listings, changedIds);
  }
}

/**
 * Beyond this many changed listings a catch-up sorts the whole catalogue again; below it, each
 * changed listing is moved to its place by binary search (a few changes to a large catalogue are
 * the common catch-up, and re-sorting 50,000 entries for one of them costs tens of milliseconds).
 */
const RESORT_AFTER_CHANGES = 64;

/**
 * `listings` newest first again (the order a search lists them by default and the snapshot stores),
 * given that only the entries of `changedIds` may be out of place.
 */
function newestFirstMap(
  listings: Map<string, CatalogueListing>,
  changedIds: Set<string>,
): Map<string, CatalogueListing> {
  const all = [...listings.values()];
  if (changedIds.size > RESORT_AFTER_CHANGES) {
    return new Map(all.sort(newestFirst).map((l) => [l.id, l]));
  }
  const ordered = all.filter((l) => !changedIds.has(l.id));
  for (const id of changedIds) {
    const entry = listings.get(id);
    if (!entry) continue;
    let low = 0;
    let high = ordered.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (newestFirst(ordered[middle] as CatalogueListing, entry) < 0) low = middle + 1;
      else high = middle;
    }
    ordered.splice(low, 0, entry);
  }
  return new Map(ordered.map((l) => [l.id, l]));
}

/** The catalogue's search columns for its current listings (built on first use per version). */
export function searchColumnsOf(c: Catalogue): SearchColumns {
  c.columns ??= buildSearchColumns([...c.listings.values()]);
  return c.columns;
}

/** The catalogue's word index (built on the first `q` search, then kept current). */
export function wordIndexOf(c: Catalogue): WordIndex {
  c.words ??= new WordIndex(c.listings.values());
  return c.words;
}

/**
 * A catalogue from a snapshot: its entries as stored (newest first, compact, live; parsed only when
 * presented), its watermark, and its size: the decompressed snapshot it holds, plus the overhead.
 */
export function catalogueFromSnapshot(snapshot: CatalogueSnapshot, textLength: number): Catalogue {
  const c = emptyCatalogue(snapshot.tenantId);
  for (const entry of snapshot.listings) {
    c.listings.set(entry.id, entry);
    c.slugs.set(entry.slug, entry.id);
  }
  c.watermark = snapshot.watermark;
  c.bytes = textLength + snapshot.listings.length * ENTRY_OVERHEAD_BYTES;
  return c;
}

/** The catalogue as a snapshot to store. */
export function snapshotOf(c: Catalogue, builtAt = new Date().toISOString()): CatalogueSnapshot {
  return {
    version: CATALOGUE_SNAPSHOT_VERSION,
    tenantId: c.tenantId,
    watermark: c.watermark,
    builtAt,
    listings: [...c.listings.values()],
  };
}

/** The catch-up's lower bound: the watermark less the overlap for index lag. */
export function catchUpSince(watermark: string): string {
  return new Date(Date.parse(watermark) - CATCH_UP_OVERLAP_MS).toISOString();
}

/**
 * The stored snapshot as a catalogue, or undefined when there is none or it cannot be used (the
 * port unbound or failing, the object corrupt or of another version): the caller then reads the
 * table, which answers the request as before, and a rebuild is asked for.
 */
async function fromSnapshot(tenantId: string): Promise<Catalogue | undefined> {
  counters.snapshotReads++;
  try {
    const stored = await readSnapshot(tenantId);
    return stored ? catalogueFromSnapshot(stored.snapshot, stored.textLength) : undefined;
  } catch (error) {
    logger.warn('catalogue snapshot unusable: reading the table', { tenantId, error: error as Error });
    return undefined;
  }
}

/**
 * A cold catalogue: the snapshot, then the catch-up from its watermark (two round trips in a row),
 * or without one the whole listing index, and a rebuild is asked for (a failure to ask is logged,
 * never the request's: the next cold load asks again).
 */
async function coldLoad(tenantId: string): Promise<Catalogue> {
  const loaded = await fromSnapshot(tenantId);
  if (loaded) {
    counters.snapshotLoads++;
    if (loaded.watermark) {
      applyListings(loaded, await queryListingsUpdatedSince(tenantId, catchUpSince(loaded.watermark)));
    } else {
      applyListings(loaded, await queryAllListings(tenantId));
    }
    return loaded;
  }
  counters.tableLoads++;
  const c = emptyCatalogue(tenantId);
  const [items] = await Promise.all([
    queryAllListings(tenantId),
    requestCatalogueRebuild(tenantId).catch((error: unknown) =>
      logger.warn('could not ask for a catalogue rebuild', { tenantId, error: error as Error }),
    ),
  ]);
  applyListings(c, items);
  return c;
}

/** The Tenant's Areas (with their members) and active Agents, as a catalogue holds them. */
async function loadRelated(tenantId: string) {
  const [areas, agents] = await Promise.all([listAreas(tenantId), listActiveAgents(tenantId)]);
  const members = await Promise.all(areas.map((a) => membersOfArea(tenantId, a.id)));
  return {
    areas: areas.map((a, i) => ({
      id: a.id,
      kind: a.kind,
      name: a.name,
      memberIds: new Set((members[i] ?? []).filter((m) => m.via !== 'excluded').map((m) => m.propertyId)),
    })),
    agents,
    relatedLoadedAt: Date.now(),
  };
}

/**
 * Holds `c` as the most recently used catalogue, then drops the least recently used others while
 * the estimate is over the budget. The one in use stays even alone over it: its request needs it.
 */
function hold(c: Catalogue): void {
  catalogues.delete(c.tenantId);
  catalogues.set(c.tenantId, c);
  const budget = catalogueBudgetBytes();
  let total = 0;
  for (const held of catalogues.values()) total += heldBytes(held);
  for (const [tenantId, held] of catalogues) {
    if (total <= budget || held === c) break;
    catalogues.delete(tenantId);
    total -= heldBytes(held);
    counters.evictions++;
  }
}

/**
 * The Tenant's catalogue, current as of this request (listings) or the last minute (Areas, Agents).
 * The listings' read (warm: the catch-up; cold: the snapshot and its catch-up, or the table) and a
 * due re-read of Areas and Agents go out together, so the once-a-minute refresh adds no round trip
 * of waiting beyond the Area members.
 */
export async function siteCatalogue(
  tenantId: string,
  options: { related?: boolean } = {},
): Promise<Catalogue> {
  const held = catalogues.get(tenantId);
  const listings = held
    ? queryListingsUpdatedSince(
        tenantId,
        held.watermark ? catchUpSince(held.watermark) : '1970-01-01T00:00:00.000Z',
      ).then((items) => {
        applyListings(held, items);
        return held;
      })
    : coldLoad(tenantId);
  const relatedDue = (c: Catalogue | undefined) =>
    options.related &&
    (!c?.areas || !c.agents || Date.now() - c.relatedLoadedAt >= config().AUTH_CACHE_TTL_SECONDS * 1000);
  const [c, related] = await Promise.all([listings, relatedDue(held) ? loadRelated(tenantId) : undefined]);
  if (related) {
    Object.assign(c, related);
    c.locations = undefined;
    if (c.columns) forgetLocationBits(c.columns);
  }
  hold(c);
  return c;
}

/** The catalogue's locations (needs a catalogue read with `related`). */
export function locationsOf(c: Catalogue): SiteLocation[] {
  c.locations ??= buildLocations(c.listings.values(), c.areas ?? []);
  return c.locations;
}
