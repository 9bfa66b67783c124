/**
 * The site's search, similar-listing and location rules over a Tenant's live listings (the
 * publishable-key reads, docs/site-api.md). Pure: the listings come from the in-memory catalogue
 * (services/site-catalogue.ts).
 */
import { roundCoordinate } from './coordinates.ts';
import { compareDecimals } from './decimal.ts';
import { slugify } from './slug.ts';

/** What these rules read of a live listing. */
export interface SiteListing {
  id: string;
  title: string;
  description?: string | undefined;
  address?: string | undefined;
  locationPrecision?: LocationPrecision | undefined;
  listingType?: 'sale' | 'rent' | undefined;
  price?: string | undefined;
  rentPrice?: string | undefined;
  propertyType?: string | undefined;
  bedrooms?: number | undefined;
  amenities?: string[] | undefined;
  isFeatured?: boolean | undefined;
  placeCode?: string | undefined;
  placePath?: { code: string; name: string; kind: string }[] | undefined;
  agentId?: string | undefined;
  createdAt: string;
  /** Title and description in every language, for `q`. */
  texts?: Record<string, { title?: string; description?: string }> | undefined;
}

export type SiteSort = 'newest' | 'price_asc' | 'price_desc';
export const SITE_SORTS = ['newest', 'price_asc', 'price_desc'] as const;

export interface SiteFilters {
  listing?: 'sale' | 'rent' | undefined;
  /** Resolved from the `location` slug: the listings it covers. */
  location?: ((l: SiteListing) => boolean) | undefined;
  type?: string | undefined;
  minPrice?: string | undefined;
  maxPrice?: string | undefined;
  beds?: number | undefined;
  amenities?: string[] | undefined;
  q?: string | undefined;
  featured?: boolean | undefined;
}

/** Lowercase, accents folded: "Málaga" and "malaga" are one word to `q`. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** The price a filter or sort compares: rent_price for a rental search, else price. */
export function comparedPrice(l: SiteListing, listing: SiteFilters['listing']): string | undefined {
  return listing === 'rent' ? l.rentPrice : l.price;
}

/**
 * The words `q` searches: title and description (every language), the address where it is public
 * ({@link publicLocation}) and Place names.
 */
export function searchableText(l: SiteListing): string {
  const texts = Object.values(l.texts ?? {}).flatMap((t) => [t.title ?? '', t.description ?? '']);
  const places = (l.placePath ?? []).map((p) => p.name);
  const address = publicLocation(l).address ?? '';
  return foldText([l.title, l.description ?? '', address, ...texts, ...places].join(' '));
}

/**
 * The folded words of `q`. A search tests every listing against the same `q`: the last one's words
 * are kept, so it is folded once per search, not once per listing.
 */
let lastQuery: { q: string; words: string[] } | undefined;
export function queryWords(q: string): string[] {
  if (lastQuery?.q !== q) lastQuery = { q, words: foldText(q).split(/\s+/).filter(Boolean) };
  return lastQuery.words;
}

/** True when the listing meets every filter given. `q`: every word appears somewhere. */
export function matches(l: SiteListing, f: SiteFilters, searchable: (l: SiteListing) => string): boolean {
  if (f.listing && l.listingType !== f.listing) return false;
  if (f.location && !f.location(l)) return false;
  if (f.type && l.propertyType !== f.type) return false;
  if (f.minPrice !== undefined || f.maxPrice !== undefined) {
    const price = comparedPrice(l, f.listing);
    if (price === undefined) return false;
    if (f.minPrice !== undefined && comparePrices(price, f.minPrice) < 0) return false;
    if (f.maxPrice !== undefined && comparePrices(price, f.maxPrice) > 0) return false;
  }
  if (f.beds !== undefined && (l.bedrooms ?? -1) < f.beds) return false;
  if (f.amenities?.length) {
    const held = new Set(l.amenities ?? []);
    if (!f.amenities.every((a) => held.has(a))) return false;
  }
  if (f.featured && !l.isFeatured) return false;
  if (f.q) {
    const text = searchable(l);
    const words = queryWords(f.q);
    if (!words.every((w) => text.includes(w))) return false;
  }
  return true;
}

/** Plain whole numbers without leading zeros: most prices, compared by length then digits. */
const WHOLE = /^[1-9]\d*$/;

/**
 * `compareDecimals`, with a shortcut for two whole numbers (most prices): a search compares thousands
 * of prices, and the general comparison normalises both strings on every call.
 */
export function comparePrices(a: string, b: string): number {
  if (WHOLE.test(a) && WHOLE.test(b)) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return compareDecimals(a, b);
}

/** Ordinal, not locale-aware: ISO timestamps and UUIDs sort by code unit, and much faster. */
const ordinal = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Newest first (createdAt), ties by id: the default order of a search. */
export const newestFirst = (
  a: Pick<SiteListing, 'createdAt' | 'id'>,
  b: Pick<SiteListing, 'createdAt' | 'id'>,
) => ordinal(b.createdAt, a.createdAt) || ordinal(a.id, b.id);

/** Sorts in place: newest first; by price with unpriced listings last, ties newest first. */
export function sortListings(
  items: SiteListing[],
  sort: SiteSort,
  listing: SiteFilters['listing'],
): SiteListing[] {
  // Already newest first (the catalogue keeps that order), this is one pass of comparisons.
  if (sort === 'newest') return items.sort(newestFirst);
  const direction = sort === 'price_asc' ? 1 : -1;
  // Each price is read once, not once per comparison: whole numbers (most prices) compare as
  // numbers, exactly while below 2^53; any other decimal falls back to the exact comparison.
  const keyed = items.map((l) => {
    const price = comparedPrice(l, listing);
    const whole = price !== undefined && WHOLE.test(price) && price.length < 16;
    return { l, price, amount: whole ? Number(price) : undefined };
  });
  keyed.sort((a, b) => {
    if (a.price === undefined || b.price === undefined) {
      if (a.price === b.price) return newestFirst(a.l, b.l);
      return a.price === undefined ? 1 : -1;
    }
    const order =
      a.amount !== undefined && b.amount !== undefined
        ? a.amount - b.amount
        : comparePrices(a.price, b.price);
    return direction * Math.sign(order) || newestFirst(a.l, b.l);
  });
  for (let i = 0; i < keyed.length; i++) items[i] = (keyed[i] as (typeof keyed)[number]).l;
  return items;
}

/**
 * Similar listings (up to 3 by slug, 6 by id, as the site API publishes). The rule: live listings
 * of the same listing type (sale or rent; a listing without one matches others without one), never
 * the listing itself, ordered by
 * 1. nearness in place: the more of the Place path they share (same town before same region before
 *    same country; no shared Place last);
 * 2. nearness in price: the smaller the difference to the listing's price (rent_price for a
 *    rental); unpriced listings after priced ones;
 * 3. newest first.
 */
export function similarListings(
  target: SiteListing,
  candidates: Iterable<SiteListing>,
  limit: number,
): SiteListing[] {
  if (limit <= 0) return [];
  const targetPath = (target.placePath ?? []).map((p) => p.code);
  const targetPrice = comparedPrice(target, target.listingType);
  type Scored = { l: SiteListing; shared: number; gap: number };
  const nearerFirst = (a: Scored, b: Scored) => b.shared - a.shared || a.gap - b.gap || newestFirst(a.l, b.l);
  // The nearest `limit` so far, nearest first: each candidate costs at most `limit` comparisons,
  // not a sort of every candidate (the order is total, so the result is the sort's first `limit`).
  const nearest: Scored[] = [];
  for (const l of candidates) {
    if (l.id === target.id || l.listingType !== target.listingType) continue;
    const path = (l.placePath ?? []).map((p) => p.code);
    let shared = 0;
    while (shared < path.length && shared < targetPath.length && path[shared] === targetPath[shared])
      shared++;
    const price = comparedPrice(l, l.listingType);
    const gap =
      targetPrice === undefined || price === undefined
        ? Number.POSITIVE_INFINITY
        : Math.abs(Number(price) - Number(targetPrice));
    const candidate = { l, shared, gap };
    if (nearest.length === limit && nearerFirst(candidate, nearest[limit - 1] as Scored) >= 0) continue;
    let at = nearest.length;
    while (at > 0 && nearerFirst(candidate, nearest[at - 1] as Scored) < 0) at--;
    nearest.splice(at, 0, candidate);
    if (nearest.length > limit) nearest.pop();
  }
  return nearest.map((s) => s.l);
}

/** A location of the site (/v1/site/locations): an Area, a Place or a property type with live listings. */
export interface SiteLocation {
  kind: 'area' | 'place' | 'property_type';
  slug: string;
  name: string;
  count: number;
  /** Area: its kind (region…); Place: its kind (country, municipality…); property type: none. */
  subkind?: string | undefined;
  /** Place code, Area id or property type: what the location stands for. */
  ref: string;
  /** The ids of the live listings it covers. */
  listingIds: Set<string>;
}

/** A property type as a location name: "semi_detached" → "Semi detached". */
export function propertyTypeName(type: string): string {
  const words = type.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Builds the locations of a catalogue: Areas (their members), Places (the listings in each Place and
 * in the Places under it) and property types, each with a slug unique among all of them. A slug is
 * the name's; a clash takes the kind, then the Place code or Area id, as a suffix, in a fixed order
 * (Areas, then Places, then property types, each sorted), so a slug stays put while the set does.
 */
export function buildLocations(
  listings: Iterable<SiteListing>,
  areas: { id: string; kind: string; name: string; memberIds: Set<string> }[],
): SiteLocation[] {
  const places = new Map<string, { name: string; kind: string; ids: Set<string> }>();
  const types = new Map<string, Set<string>>();
  const live = new Set<string>();
  for (const l of listings) {
    live.add(l.id);
    for (const p of l.placePath ?? []) {
      const entry = places.get(p.code) ?? { name: p.name, kind: p.kind, ids: new Set<string>() };
      entry.ids.add(l.id);
      places.set(p.code, entry);
    }
    if (l.propertyType) types.set(l.propertyType, (types.get(l.propertyType) ?? new Set()).add(l.id));
  }
  const taken = new Set<string>();
  const claim = (name: string, kind: string, ref: string) => {
    const base = slugify(name);
    for (const candidate of [base, `${base}-${kind.replace(/_/g, '-')}`, `${base}-${slugify(ref)}`]) {
      if (!taken.has(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
    let n = 2;
    while (taken.has(`${base}-${n}`)) n++;
    taken.add(`${base}-${n}`);
    return `${base}-${n}`;
  };
  const out: SiteLocation[] = [];
  for (const a of [...areas].sort((x, y) => x.name.localeCompare(y.name) || x.id.localeCompare(y.id))) {
    const ids = new Set([...a.memberIds].filter((id) => live.has(id)));
    if (ids.size === 0) continue;
    out.push({
      kind: 'area',
      slug: claim(a.name, 'area', a.id),
      name: a.name,
      count: ids.size,
      subkind: a.kind,
      ref: a.id,
      listingIds: ids,
    });
  }
  for (const [code, p] of [...places].sort(([x], [y]) => x.localeCompare(y))) {
    out.push({
      kind: 'place',
      slug: claim(p.name, 'place', code),
      name: p.name,
      count: p.ids.size,
      subkind: p.kind,
      ref: code,
      listingIds: p.ids,
    });
  }
  for (const [type, ids] of [...types].sort(([x], [y]) => x.localeCompare(y))) {
    out.push({
      kind: 'property_type',
      slug: claim(type, 'type', type),
      name: propertyTypeName(type),
      count: ids.size,
      ref: type,
      listingIds: ids,
    });
  }
  return out;
}

/** How precisely a listing's location may be published (the listing's `location_precision`). */
export type LocationPrecision = 'exact' | 'approximate' | 'hidden';

/**
 * The one location-privacy rule of every site answer, so that no answer shows more than another:
 * `exact` publishes the address and coordinates as given; `approximate` the coordinates rounded to
 * 2 decimals (about 1 km) and no address (the street address locates the door; the listing's Place,
 * shown beside it, names the town); `hidden` neither. The site search (`q`) follows it too, so a
 * hidden address cannot be found by searching its words.
 */
export function publicLocation(l: {
  address?: string | undefined;
  latitude?: number | undefined;
  longitude?: number | undefined;
  locationPrecision?: LocationPrecision | undefined;
}): { address: string | null; latitude: number | null; longitude: number | null } {
  const precision = l.locationPrecision ?? 'exact';
  if (precision === 'hidden') return { address: null, latitude: null, longitude: null };
  const coordinate = (v: number | undefined) =>
    v === undefined ? null : precision === 'approximate' ? roundCoordinate(v) : v;
  return {
    address: precision === 'exact' ? (l.address ?? null) : null,
    latitude: coordinate(l.latitude),
    longitude: coordinate(l.longitude),
  };
}
