import * as z from 'zod/mini';
import type { AreaMembershipRecord } from '../data/areas.ts';
import type { ListingRecord } from '../data/listings.ts';
import { AMENITY_CODES } from '../domain/amenities.ts';
import { APPROXIMATE_LOCATION, STORED_COORDINATE, storedCoordinate } from '../domain/coordinates.ts';
import { ENRICHMENT_STATUSES, MAX_HIGHLIGHTS } from '../domain/enrichment.ts';
import { type GalleryImage, orderGallery } from '../domain/images.ts';
import { listingStatus, needsLocation } from '../domain/listing.ts';
import { type TextView, viewTexts } from '../domain/listing-text.ts';
import { PathEntryOut, placeLabels } from './places.ts';
import { ImageOut, toImageOut } from './property-images.ts';
import {
  AmenityCode,
  CurrencyCode,
  integerBetween,
  Money,
  nonNegativeDecimal,
  PageQuery,
  QueryBoolean,
  setOf,
  trimmedText,
  Uuid,
} from './shared.ts';

const HttpsUrl = z
  .string()
  .check(z.maxLength(2048), z.regex(/^https:\/\/[^\s/$.?#][^\s]*$/i, 'Must be an https:// URL'));

const SquareMetres = nonNegativeDecimal({ maxIntegerDigits: 9, maxFractionDigits: 2 });

/** A latitude (`limit` 90) or longitude (180) in degrees, kept as {@link STORED_COORDINATE} says. */
function coordinate(limit: number) {
  return z.pipe(
    z.number().check(z.gte(-limit), z.lte(limit), z.describe(STORED_COORDINATE.description)),
    z.transform(storedCoordinate),
  );
}

export const LOCATION_PRECISIONS = ['exact', 'approximate', 'hidden'] as const;

/**
 * Writable listing fields (docs/listings.md). Unknown fields are ignored; read-only ones too.
 * title, description and highlights are written in the request's language (`?lang=`).
 */
const writableFields = {
  title: trimmedText(255, 'Must not be empty'),
  description: z.nullable(z.string().check(z.maxLength(20_000))),
  listing_type: z.nullable(z.enum(['sale', 'rent'])),
  price: z.nullable(Money),
  currency: z.nullable(CurrencyCode),
  rent_price: z.nullable(Money),
  property_type: z.nullable(trimmedText(100).check(z.toLowerCase())),
  bedrooms: z.nullable(integerBetween(0, 1000)),
  bathrooms: z.nullable(nonNegativeDecimal({ maxIntegerDigits: 3, maxFractionDigits: 1 })),
  area: z.nullable(SquareMetres.check(z.describe('Built area in m², a decimal string'))),
  lot_area: z.nullable(SquareMetres.check(z.describe('Plot area in m², a decimal string'))),
  parking_spaces: z.nullable(integerBetween(0, 1000)),
  year_built: z.nullable(integerBetween(1000, new Date().getUTCFullYear() + 10)),
  floor: z.nullable(
    integerBetween(-10, 300).check(z.describe('0 is the ground floor; negative below ground')),
  ),
  hoa_fee: z.nullable(Money.check(z.describe('Community / HOA fee per month, a decimal string'))),
  amenities: z.nullable(setOf(AmenityCode, AMENITY_CODES.length)),
  address: z.nullable(trimmedText(500)),
  latitude: z.nullable(coordinate(90)),
  longitude: z.nullable(coordinate(180)),
  location_precision: z.nullable(
    z
      .enum(LOCATION_PRECISIONS)
      .check(
        z.describe(
          `exact: coordinates shown as given; approximate: ${APPROXIMATE_LOCATION.description} on the public site, without the address; hidden: never shown on the public site`,
        ),
      ),
  ),
  is_featured: z.nullable(z.boolean()),
  video_url: z.nullable(HttpsUrl),
  tour_url: z.nullable(HttpsUrl),
  highlights: z.nullable(
    z
      .array(trimmedText(120))
      .check(z.maxLength(MAX_HIGHLIGHTS, `At most ${MAX_HIGHLIGHTS} highlights per language`)),
  ),
  ai_enrichment: z.boolean().check(z.describe('false: writes never queue AI enrichment for this listing')),
  place_code: z.nullable(trimmedText(32)),
  internal_ref: z.nullable(trimmedText(255)),
  agent_id: z.nullable(Uuid),
  agent_email: z.nullable(z.string().check(z.trim(), z.maxLength(320), z.toLowerCase())),
  archived: z
    .boolean()
    .check(
      z.describe(
        'false takes an archived listing back (live again if it has a Place, else draft; events property.updated and, when live, property.went_live): the way a feed re-lists a property with PUT /v1/properties/by-ref/{internal_ref}. true archives it, as DELETE does. Omitted: left as it is (a PUT on an archived listing leaves it archived)',
      ),
    ),
};

const PropertyFields = z.object(writableFields);

/** POST: only title is required. */
export const PropertyCreate = z.extend(z.partial(PropertyFields), { title: writableFields.title });

/** PATCH: every field optional; null clears it (title cannot be cleared). */
export const PropertyUpdate = z.partial(PropertyFields);

export type PropertyCreateInput = z.infer<typeof PropertyCreate>;
export type PropertyUpdateInput = z.infer<typeof PropertyUpdate>;

export const PropertyPath = z.object({ property_id: Uuid });
export const PropertyRefPath = z.object({ internal_ref: trimmedText(255) });

/** `?lang=`: a Site Language of the Tenant (checked against the Tenant by the service). */
export const LanguageQuery = z.object({
  lang: z.optional(
    z.string().check(z.regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'Must be a language code such as en or pt-BR')),
  ),
});

export const PropertyListQuery = z.extend(PageQuery, {
  include_archived: z
    ._default(z.optional(QueryBoolean), false)
    .check(
      z.describe(
        'true: archived listings too, merged in order (they are kept in a list of their own, which a page without them never reads). Like every list, a page may hold fewer than limit listings (even none) with a next_cursor: each request reads a bounded number of items',
      ),
    ),
  ...LanguageQuery.shape,
});

export const ListingPlaceOut = z.object({
  code: z.string(),
  path: z.array(PathEntryOut).check(z.describe('Root first')),
  short: z.string().check(z.describe('The card string')),
  long: z.string().check(z.describe('The detail string')),
});

export const ListingAreaOut = z.object({
  id: Uuid,
  kind: z.enum(['region', 'zone', 'neighborhood', 'community']),
  name: z.string(),
  via: z.enum(['rule', 'manual', 'excluded']),
});

/**
 * The listing's text, facts and media as both the console (PropertyOut) and the website
 * (SiteListingOut) show them: one schema and one mapping, so the two answers cannot drift apart.
 * Each group is spread where it stands in both objects, which keeps the documented field order.
 */
export const listingTextFields = {
  title: z.string(),
  description: z.nullable(z.string()),
  highlights: z.array(z.string()),
  seo_description: z.nullable(z.string()),
};

/** The listing's facts (type, prices, rooms, sizes): see {@link listingTextFields}. */
export const listingFactFields = {
  listing_type: z.nullable(z.enum(['sale', 'rent'])),
  price: z.nullable(z.string()),
  currency: z.nullable(z.string()),
  rent_price: z.nullable(z.string()),
  property_type: z.nullable(z.string()),
  bedrooms: z.nullable(z.number().check(z.int())),
  bathrooms: z.nullable(z.string()),
  area: z.nullable(z.string()),
  lot_area: z.nullable(z.string()),
  parking_spaces: z.nullable(z.number().check(z.int())),
  year_built: z.nullable(z.number().check(z.int())),
  floor: z.nullable(z.number().check(z.int())),
  hoa_fee: z.nullable(z.string()),
};

/** Whether the listing is featured, and its video and tour links: see {@link listingTextFields}. */
export const listingMediaFields = {
  is_featured: z.boolean(),
  video_url: z.nullable(z.string()),
  tour_url: z.nullable(z.string()),
};

type FieldsOutput<T extends Record<string, z.ZodMiniType>> = { [K in keyof T]: z.infer<T[K]> };

/** The text of a read in `language` (the listing's own language when omitted), with that language. */
export function toListingText(
  p: ListingRecord,
  language?: string,
): FieldsOutput<typeof listingTextFields> & { language: string; untranslated: TextView['untranslated'] } {
  const text = viewTexts(p, language);
  return {
    title: text.title,
    description: text.description,
    highlights: text.highlights,
    seo_description: text.seo_description,
    language: text.language,
    untranslated: text.untranslated,
  };
}

/** Storage record → the listing's facts; an unset one is null. */
export function toListingFacts(p: ListingRecord): FieldsOutput<typeof listingFactFields> {
  return {
    listing_type: p.listingType ?? null,
    price: p.price ?? null,
    currency: p.currency ?? null,
    rent_price: p.rentPrice ?? null,
    property_type: p.propertyType ?? null,
    bedrooms: p.bedrooms ?? null,
    bathrooms: p.bathrooms ?? null,
    area: p.area ?? null,
    lot_area: p.lotArea ?? null,
    parking_spaces: p.parkingSpaces ?? null,
    year_built: p.yearBuilt ?? null,
    floor: p.floor ?? null,
    hoa_fee: p.hoaFee ?? null,
  };
}

/** Storage record → featured flag and links; not featured unless marked. */
export function toListingMedia(p: ListingRecord): FieldsOutput<typeof listingMediaFields> {
  return { is_featured: p.isFeatured ?? false, video_url: p.videoUrl ?? null, tour_url: p.tourUrl ?? null };
}

/** The listing's Place with its card and detail strings; null while it has none. */
export function toListingPlace(
  p: ListingRecord,
): { code: string; path: NonNullable<ListingRecord['placePath']>; short: string; long: string } | null {
  return p.placeCode && p.placePath?.length
    ? { code: p.placeCode, path: p.placePath, ...placeLabels(p.placePath) }
    : null;
}

/** The gallery in its shown order (sort_order, then created_at), each photo as the API shows it. */
export function toGalleryOut(p: ListingRecord) {
  return orderGallery((p.images ?? []) as GalleryImage[]).map(toImageOut);
}

/**
 * The gallery a website sees (the site API): the ready photos alone (a page cannot show a photo
 * without renditions), in the same order; when the cover is still processing, the first ready photo
 * stands in as the cover, so exactly one is_primary whenever there are photos.
 */
export function toSiteGalleryOut(p: ListingRecord) {
  const ready = toGalleryOut(p).filter((i) => i.status === 'ready');
  if (ready.length === 0 || ready.some((i) => i.is_primary)) return ready;
  return ready.map((i, n) => ({ ...i, is_primary: n === 0 }));
}

export const PropertyOut = z.object({
  id: Uuid,
  ...listingTextFields,
  language: z.string().check(z.describe('The language of title, description and highlights')),
  source_language: z.string().check(z.describe("The language of the listing's own text")),
  untranslated: z
    .array(z.enum(['title', 'description']))
    .check(z.describe('Fields shown in the source language because the requested language has none yet')),
  ...listingFactFields,
  amenities: z.array(z.string()),
  address: z.nullable(z.string()),
  latitude: z.nullable(z.number()),
  longitude: z.nullable(z.number()),
  location_precision: z.enum(LOCATION_PRECISIONS),
  ...listingMediaFields,
  place_code: z.nullable(z.string()),
  place: z.nullable(ListingPlaceOut),
  areas: z.array(ListingAreaOut),
  images: z
    .array(ImageOut)
    .check(
      z.describe('The gallery, ordered by sort_order then created_at; exactly one is_primary (the cover)'),
    ),
  agent_id: z.nullable(Uuid),
  internal_ref: z.nullable(z.string()),
  ai_enrichment: z.boolean(),
  enrichment_status: z
    .nullable(z.enum(ENRICHMENT_STATUSES))
    .check(z.describe('null: enrichment was never requested')),
  status: z.enum(['draft', 'live', 'archived']),
  needs_location: z.boolean(),
  origin: z.enum(['api', 'import', 'console']),
  slug: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.nullable(z.string()),
});
export type PropertyOutput = z.infer<typeof PropertyOut>;

/** Storage record → the public listing, in `language` (its own language when omitted). */
export function toPropertyOut(
  p: ListingRecord,
  options: { language?: string | undefined; areas?: AreaMembershipRecord[] } = {},
): PropertyOutput {
  const { untranslated, ...text } = toListingText(p, options.language);
  return {
    id: p.id,
    ...text,
    source_language: p.sourceLanguage,
    untranslated,
    ...toListingFacts(p),
    amenities: p.amenities ?? [],
    address: p.address ?? null,
    latitude: p.latitude ?? null,
    longitude: p.longitude ?? null,
    location_precision: p.locationPrecision ?? 'exact',
    ...toListingMedia(p),
    place_code: p.placeCode ?? null,
    place: toListingPlace(p),
    areas: (options.areas ?? []).map((m) => ({
      id: m.areaId,
      kind: m.areaKind,
      name: m.areaName,
      via: m.via,
    })),
    images: toGalleryOut(p),
    agent_id: p.agentId ?? null,
    internal_ref: p.internalRef ?? null,
    ai_enrichment: p.aiEnrichment,
    enrichment_status: p.enrichmentStatus ?? null,
    status: listingStatus(p),
    needs_location: needsLocation(p),
    origin: p.origin,
    slug: p.slug,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    archived_at: p.archivedAt ?? null,
  };
}
