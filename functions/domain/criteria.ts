/**
 * A Lead's search criteria (LeadCriteriaIn/Out and their limits, as docs/criteria-matches.md describes
 * them) and the rules that match a listing against them. Pure: storage and HTTP live elsewhere.
 */
import { compareDecimals, DECIMAL_PATTERN } from './decimal.ts';
import { listingStatus } from './listing.ts';

/** The published bounds of LeadCriteriaIn: how many items each array holds and how long each item is. */
export const CRITERIA_LIMITS = {
  placeCodes: 50,
  areaIds: 50,
  propertyTypes: 20,
  propertyTypeLength: 100,
  placeCodeLength: 32,
  /** Not a published bound: a cap that keeps the criteria item small. */
  notesLength: 10_000,
} as const;

/** The criteria as stored; absent scalar = not set, empty array = not set. */
export interface Criteria {
  listingType?: 'sale' | 'rent' | undefined;
  /** Normalised decimal strings. */
  minPrice?: string | undefined;
  maxPrice?: string | undefined;
  /** Upper-case ISO 4217 code. */
  currency?: string | undefined;
  minBeds?: number | undefined;
  /** Normalised decimal string. */
  minBaths?: string | undefined;
  /** Lower-case. */
  propertyTypes: string[];
  amenities: string[];
  placeCodes: string[];
  areaIds: string[];
  notes?: string | undefined;
}

/**
 * The names `reasons` uses, one per criterion a match met (they are the LeadCriteriaIn field names;
 * `price` stands for min_price and max_price together, compared in `currency`).
 */
export const MATCH_REASONS = [
  'listing_type',
  'price',
  'min_beds',
  'min_baths',
  'property_types',
  'amenities',
  'place_codes',
  'area_ids',
] as const;
export type MatchReason = (typeof MATCH_REASONS)[number];

/** The problems of a criteria write that no single field shows, with the field to name. */
export interface CriteriaProblem {
  field: 'currency' | 'max_price';
  message: string;
  type: string;
}

/** A well-formed decimal string (length first: the pattern backtracks on long input). */
function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 64 && DECIMAL_PATTERN.test(value);
}

export function criteriaProblems(c: {
  minPrice?: string | null | undefined;
  maxPrice?: string | null | undefined;
  currency?: string | null | undefined;
}): CriteriaProblem[] {
  const problems: CriteriaProblem[] = [];
  const hasBound = (c.minPrice ?? null) !== null || (c.maxPrice ?? null) !== null;
  if (hasBound && !c.currency) {
    problems.push({
      field: 'currency',
      message: 'A price bound (min_price or max_price) needs a currency',
      type: 'currency_required',
    });
  }
  if (isDecimal(c.minPrice) && isDecimal(c.maxPrice) && compareDecimals(c.minPrice, c.maxPrice) > 0) {
    problems.push({
      field: 'max_price',
      message: 'max_price must be at least min_price',
      type: 'range_inverted',
    });
  }
  return problems;
}

/**
 * A JSON number as a plain decimal string, without exponent or grouping ("1e21" →
 * "1000000000000000000000", 1e-7 → "0.0000001"), so that the decimal checks judge its digits.
 */
let plainNumber: Intl.NumberFormat | undefined;
export function numberToDecimal(value: number): string {
  // Built on first use: creating a NumberFormat loads ICU data, ~18 ms that every function importing
  // this module would otherwise pay at cold start (measured on Node 24).
  plainNumber ??= new Intl.NumberFormat('en-US', { useGrouping: false, maximumFractionDigits: 20 });
  return plainNumber.format(value);
}

/** Does the saved criteria narrow anything? notes and a lone currency do not. */
export function hasCriterion(c: Criteria | undefined): c is Criteria {
  if (!c) return false;
  return (
    c.listingType !== undefined ||
    c.minPrice !== undefined ||
    c.maxPrice !== undefined ||
    c.minBeds !== undefined ||
    c.minBaths !== undefined ||
    c.propertyTypes.length > 0 ||
    c.amenities.length > 0 ||
    c.placeCodes.length > 0 ||
    c.areaIds.length > 0
  );
}

/** The listing facts a match looks at. */
export interface ListingFacts {
  listingType?: 'sale' | 'rent' | undefined;
  price?: string | undefined;
  rentPrice?: string | undefined;
  currency?: string | undefined;
  propertyType?: string | undefined;
  bedrooms?: number | undefined;
  bathrooms?: string | undefined;
  amenities?: string[] | undefined;
  placeCode?: string | undefined;
  /** The Place's path, root first (the Place itself last). */
  placePath?: { code: string }[] | undefined;
  archivedAt?: string | undefined;
}

/**
 * The price a bound is compared with: the rent for a rental, the sale price otherwise. The type is
 * the one the Lead asks for, or the listing's own when the Lead does not say.
 */
function comparedPrice(c: Criteria, listing: ListingFacts): string | undefined {
  const type = c.listingType ?? listing.listingType;
  return type === 'rent' ? listing.rentPrice : listing.price;
}

/**
 * Matches a live listing against criteria. `areaIds` are the Areas the listing is a member of
 * (via rule or manual; an excluded listing is not a member). Returns the criteria met, in
 * MATCH_REASONS order, or null when the listing is not live or misses any criterion.
 */
export function matchReasons(
  c: Criteria,
  listing: ListingFacts,
  areaIds: ReadonlySet<string>,
): MatchReason[] | null {
  if (listingStatus(listing) !== 'live') return null;
  const reasons: MatchReason[] = [];

  if (c.listingType !== undefined) {
    if (listing.listingType !== c.listingType) return null;
    reasons.push('listing_type');
  }

  if (c.minPrice !== undefined || c.maxPrice !== undefined) {
    const amount = comparedPrice(c, listing);
    if (amount === undefined || !c.currency) return null;
    if ((listing.currency ?? '').toUpperCase() !== c.currency.toUpperCase()) return null;
    if (c.minPrice !== undefined && compareDecimals(amount, c.minPrice) < 0) return null;
    if (c.maxPrice !== undefined && compareDecimals(amount, c.maxPrice) > 0) return null;
    reasons.push('price');
  }

  if (c.minBeds !== undefined) {
    if (listing.bedrooms === undefined || listing.bedrooms < c.minBeds) return null;
    reasons.push('min_beds');
  }

  if (c.minBaths !== undefined) {
    if (listing.bathrooms === undefined || compareDecimals(listing.bathrooms, c.minBaths) < 0) return null;
    reasons.push('min_baths');
  }

  if (c.propertyTypes.length > 0) {
    const type = listing.propertyType?.toLowerCase();
    if (type === undefined || !c.propertyTypes.includes(type)) return null;
    reasons.push('property_types');
  }

  if (c.amenities.length > 0) {
    const present = new Set(listing.amenities ?? []);
    if (!c.amenities.every((a) => present.has(a))) return null;
    reasons.push('amenities');
  }

  if (c.placeCodes.length > 0) {
    const codes = new Set((listing.placePath ?? []).map((p) => p.code));
    if (listing.placeCode) codes.add(listing.placeCode);
    if (!c.placeCodes.some((code) => codes.has(code))) return null;
    reasons.push('place_codes');
  }

  if (c.areaIds.length > 0) {
    if (!c.areaIds.some((id) => areaIds.has(id))) return null;
    reasons.push('area_ids');
  }

  return reasons;
}

/** Newest listing first; equal creation times fall back to id so the order is stable. */
export function newestFirst(
  a: { createdAt: string; id: string },
  b: { createdAt: string; id: string },
): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** How many matches GET /v1/leads/{lead_id}/matches answers at most. */
export const MAX_MATCHES = 50;
/** How many listings one matches:send may carry. */
export const MAX_SEND = 20;
