import { findListingClaim, getListing, type ListingRecord } from '../data/listings.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { listingStatus } from '../domain/listing.ts';
import { queryWords, type SiteSort, similarListings } from '../domain/site-search.ts';
import { NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import {
  type Catalogue,
  locationsOf,
  searchColumnsOf,
  siteCatalogue,
  wordIndexOf,
} from './site-catalogue.ts';
import { searchColumns } from './site-search-index.ts';

/** The Site Language of a site call: `locale` when it is one of the Tenant's, else 422; default the first. */
export function siteLanguage(tenant: TenantRecord, locale: string | undefined): string {
  if (locale === undefined) return tenant.languages[0] ?? 'en';
  if (!tenant.languages.includes(locale)) {
    throw RequestValidationError.single(
      ['query', 'locale'],
      `"${locale}" is not a Site Language of this tenant (enabled: ${tenant.languages.join(', ')})`,
      'language_not_enabled',
    );
  }
  return locale;
}

export interface SiteSearch {
  listing?: 'sale' | 'rent' | undefined;
  location?: string | undefined;
  type?: string | undefined;
  min_price?: string | undefined;
  max_price?: string | undefined;
  beds?: number | undefined;
  amenities?: string[] | undefined;
  q?: string | undefined;
  featured?: boolean | undefined;
  sort: SiteSort;
  limit: number;
  offset: number;
}

/** Agents by id, for the listing's agent label (the catalogue's Agents, when read). */
export function agentsById(c: Catalogue) {
  return new Map((c.agents ?? []).map((a) => [a.id, a]));
}

/**
 * GET /v1/site/properties over the catalogue: filters, sort, then the page. An unknown `location`
 * finds nothing (a location without live listings leaves the list, and a cached page may still
 * name it); `min_price` above `max_price` → 422.
 */
export async function searchSite(tenantId: string, s: SiteSearch) {
  if (s.min_price !== undefined && s.max_price !== undefined && Number(s.min_price) > Number(s.max_price)) {
    throw RequestValidationError.single(
      ['query', 'min_price'],
      'min_price must not be above max_price',
      'range_inverted',
    );
  }
  return searchCatalogue(await siteCatalogue(tenantId, { related: true }), s);
}

/**
 * The search over a catalogue already read: its filters over the listings in the sort's order, then
 * the page, on the catalogue's search columns (services/site-search-index.ts). An unknown `location`
 * finds nothing.
 */
export function searchCatalogue(c: Catalogue, s: SiteSearch) {
  const q = s.q?.trim() ? queryWords(s.q) : [];
  let location: { key: object; ids: ReadonlySet<string> } | undefined;
  if (s.location !== undefined) {
    const found = locationsOf(c).find((l) => l.slug === s.location);
    location = found ? { key: found, ids: found.listingIds } : { key: {}, ids: new Set() };
  }
  const { items, total } = searchColumns(searchColumnsOf(c), {
    filters: {
      listing: s.listing,
      type: s.type,
      minPrice: s.min_price,
      maxPrice: s.max_price,
      beds: s.beds,
      amenities: s.amenities,
      featured: s.featured,
    },
    sort: s.sort,
    location,
    q: q.length ? { words: q, index: wordIndexOf(c) } : undefined,
    offset: s.offset,
    limit: s.limit,
  });
  return { catalogue: c, items: items as ListingRecord[], total };
}

/** A live listing by slug; a retired slug still finds it (is_canonical false). Else 404. */
export async function siteListingBySlug(tenantId: string, slug: string) {
  const c = await siteCatalogue(tenantId, { related: true });
  const current = c.slugs.get(slug);
  if (current) return { catalogue: c, listing: c.listings.get(current) as ListingRecord, isCanonical: true };
  const claim = await findListingClaim(tenantId, 'property-slug', slug);
  const listing = claim ? c.listings.get(claim.ownerId) : undefined;
  if (!listing) throw new NotFoundError('No live listing with this slug');
  return { catalogue: c, listing, isCanonical: listing.slug === slug };
}

/** A listing by id: live → its detail; archived or a draft → unavailable; unknown → 404. */
export async function siteListingById(tenantId: string, id: string) {
  const c = await siteCatalogue(tenantId, { related: true });
  const live = c.listings.get(id);
  if (live) return { catalogue: c, listing: live };
  const stored = await getListing(tenantId, id);
  if (!stored) throw new NotFoundError('No listing with this id');
  // Also live here: the catalogue may be a moment behind a listing that has just gone live.
  return { catalogue: c, listing: listingStatus(stored) === 'live' ? stored : undefined };
}

/** Up to `limit` listings like the given one (domain/site-search.ts `similarListings`). */
export function similarTo(c: Catalogue, listing: ListingRecord, limit: number): ListingRecord[] {
  return similarListings(listing, c.listings.values(), limit) as ListingRecord[];
}

/** The live listing of an id, or 404 (the similar reads need a live listing to compare with). */
export async function liveListing(tenantId: string, id: string) {
  const c = await siteCatalogue(tenantId, { related: true });
  const listing = c.listings.get(id);
  if (!listing) throw new NotFoundError('No live listing with this id');
  return { catalogue: c, listing };
}

/** Areas, Places and property types with live listings. */
export async function siteLocations(tenantId: string) {
  return locationsOf(await siteCatalogue(tenantId, { related: true }));
}

/** Active Agents with their live listings counted. */
export async function siteAgents(tenantId: string) {
  const c = await siteCatalogue(tenantId, { related: true });
  const counts = new Map<string, number>();
  for (const l of c.listings.values()) if (l.agentId) counts.set(l.agentId, (counts.get(l.agentId) ?? 0) + 1);
  const agents = [...(c.agents ?? [])].sort(
    (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
  return agents.map((agent) => ({ agent, listingCount: counts.get(agent.id) ?? 0 }));
}
