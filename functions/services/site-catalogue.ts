import { type AgentRecord, listActiveAgents } from '../data/agents.ts';
import { listAreas, membersOfArea } from '../data/areas.ts';
import { type ListingRecord, queryAllListings, queryListingsUpdatedSince } from '../data/listings.ts';
import { listingStatus } from '../domain/listing.ts';
import { buildLocations, newestFirst, type SiteLocation, searchableText } from '../domain/site-search.ts';
import { config } from '../kernel/config.ts';

/**
 * The compact per-Tenant catalogue of live listings that the site reads search (issue 12, point 7),
 * held in memory by a warm function. It is loaded once (every listing of the Tenant), then kept
 * current by a catch-up Query per request on the listings' (updatedAt, id) index from the last
 * change seen, less an overlap for index lag: with no change it returns nothing and costs half a
 * read unit and one round trip, and any change (new, edited, archived) shows on the next request.
 * A search therefore never reads every live listing. Areas and Agents change rarely and are
 * re-read at most every AUTH_CACHE_TTL_SECONDS (≤ 60 s), the same freshness as the edge cache.
 */
const CATCH_UP_OVERLAP_MS = 5_000;
const TENANT_LIMIT = 50;

export interface Catalogue {
  tenantId: string;
  /** Live listings by id, in the order a search lists them by default (newest first). */
  listings: Map<string, ListingRecord>;
  /** Live listings' current slugs → id. */
  slugs: Map<string, string>;
  /** Folded search text per listing id (built on first use). */
  searchText: Map<string, string>;
  watermark?: string | undefined;
  areas?: { id: string; kind: string; name: string; memberIds: Set<string> }[];
  agents?: AgentRecord[];
  relatedLoadedAt: number;
  /** Derived from listings and areas; dropped on any change. */
  locations?: SiteLocation[] | undefined;
}

const catalogues = new Map<string, Catalogue>();

/** Tests and the bench: forget every catalogue (a cold function). */
export function clearSiteCatalogues(): void {
  catalogues.clear();
}

/**
 * Applies listings read from the index. The catch-up's overlap reads the last few changes again on
 * every request: a version already held (same updatedAt), or a listing that is not live and was not
 * held, changes nothing, so the derived locations and search text are kept.
 */
function apply(c: Catalogue, items: ListingRecord[]): void {
  let changed = false;
  for (const p of items) {
    if (!c.watermark || p.updatedAt > c.watermark) c.watermark = p.updatedAt;
    const previous = c.listings.get(p.id);
    const live = listingStatus(p) === 'live';
    if (previous ? previous.updatedAt === p.updatedAt && live : !live) continue;
    changed = true;
    if (previous) c.slugs.delete(previous.slug);
    c.searchText.delete(p.id);
    if (live) {
      c.listings.set(p.id, p);
      c.slugs.set(p.slug, p.id);
    } else {
      c.listings.delete(p.id);
    }
  }
  if (changed) {
    c.locations = undefined;
    // Newest first, as a search lists them by default: sorting the hits is then one pass.
    c.listings = new Map([...c.listings].sort(([, a], [, b]) => newestFirst(a, b)));
  }
}

async function loadRelated(c: Catalogue): Promise<void> {
  const [areas, agents] = await Promise.all([listAreas(c.tenantId), listActiveAgents(c.tenantId)]);
  const members = await Promise.all(areas.map((a) => membersOfArea(c.tenantId, a.id)));
  c.areas = areas.map((a, i) => ({
    id: a.id,
    kind: a.kind,
    name: a.name,
    memberIds: new Set((members[i] ?? []).filter((m) => m.via !== 'excluded').map((m) => m.propertyId)),
  }));
  c.agents = agents;
  c.relatedLoadedAt = Date.now();
  c.locations = undefined;
}

/**
 * The Tenant's catalogue, current as of this request (listings) or the last minute (Areas, Agents).
 * The listings' read (the whole index on a fresh function, else the catch-up) and a due re-read of
 * Areas and Agents go out together, so the once-a-minute refresh adds no round trip of waiting
 * beyond the Area members.
 */
export async function siteCatalogue(
  tenantId: string,
  options: { related?: boolean } = {},
): Promise<Catalogue> {
  const held = catalogues.get(tenantId);
  const c: Catalogue = held ?? {
    tenantId,
    listings: new Map(),
    slugs: new Map(),
    searchText: new Map(),
    relatedLoadedAt: 0,
  };
  const stale = Date.now() - c.relatedLoadedAt >= config().AUTH_CACHE_TTL_SECONDS * 1000;
  const since = c.watermark
    ? new Date(Date.parse(c.watermark) - CATCH_UP_OVERLAP_MS).toISOString()
    : '1970-01-01T00:00:00.000Z';
  await Promise.all([
    (held ? queryListingsUpdatedSince(tenantId, since) : queryAllListings(tenantId)).then((items) =>
      apply(c, items),
    ),
    options.related && (!c.areas || !c.agents || stale) ? loadRelated(c) : undefined,
  ]);
  if (!held) {
    if (catalogues.size >= TENANT_LIMIT) catalogues.delete(catalogues.keys().next().value as string);
    catalogues.set(tenantId, c);
  }
  return c;
}

/** The folded text `q` searches, per listing, built once per listing version. */
export function searchTextOf(c: Catalogue) {
  return (l: { id: string }): string => {
    let text = c.searchText.get(l.id);
    if (text === undefined) {
      const listing = c.listings.get(l.id);
      text = listing ? searchableText(listing) : '';
      c.searchText.set(l.id, text);
    }
    return text;
  };
}

/** The catalogue's locations (needs a catalogue read with `related`). */
export function locationsOf(c: Catalogue): SiteLocation[] {
  c.locations ??= buildLocations(c.listings.values(), c.areas ?? []);
  return c.locations;
}
