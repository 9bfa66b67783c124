import * as z from 'zod';
import type { AreaMembershipRecord } from '../../data/areas.ts';
import type { PropertyRecord } from '../../data/properties.ts';
import { AMENITY_CODES, isAmenityCode } from '../../domain/amenities.ts';
import { ENRICHMENT_STATUSES, MAX_HIGHLIGHTS } from '../../domain/enrichment.ts';
import { viewTexts } from '../../domain/listing-text.ts';
import { listingStatus, needsLocation } from '../../domain/property.ts';
import { PathEntryOut, placeLabels } from '../places/schemas.ts';
import { CurrencyCode, Money, nonNegativeDecimal, PageQuery, QueryBoolean, Uuid } from '../shared/schemas.ts';

const HttpsUrl = z
  .string()
  .max(2048)
  .regex(/^https:\/\/[^\s/$.?#][^\s]*$/i, 'Must be an https:// URL');

const SquareMetres = nonNegativeDecimal({ maxIntegerDigits: 9, maxFractionDigits: 2 });

export const LOCATION_PRECISIONS = ['exact', 'approximate', 'hidden'] as const;

/**
 * Writable listing fields (interface §2.4). Unknown fields are ignored; read-only ones too.
 * title, description and highlights are written in the request's language (`?lang=`).
 */
const writableFields = {
  title: z.string().trim().min(1, 'Must not be empty').max(255),
  description: z.string().max(20_000).nullable(),
  listing_type: z.enum(['sale', 'rent']).nullable(),
  price: Money.nullable(),
  currency: CurrencyCode.nullable(),
  rent_price: Money.nullable(),
  property_type: z.string().trim().min(1).max(100).toLowerCase().nullable(),
  bedrooms: z.number().int('Must be an integer').min(0).max(1000).nullable(),
  bathrooms: nonNegativeDecimal({ maxIntegerDigits: 3, maxFractionDigits: 1 }).nullable(),
  area: SquareMetres.describe('Built area in m², a decimal string').nullable(),
  lot_area: SquareMetres.describe('Plot area in m², a decimal string').nullable(),
  parking_spaces: z.number().int('Must be an integer').min(0).max(1000).nullable(),
  year_built: z
    .number()
    .int('Must be an integer')
    .min(1000)
    .max(new Date().getUTCFullYear() + 10)
    .nullable(),
  floor: z
    .number()
    .int('Must be an integer')
    .min(-10)
    .max(300)
    .describe('0 is the ground floor; negative below ground')
    .nullable(),
  hoa_fee: Money.describe('Community / HOA fee per month, a decimal string').nullable(),
  amenities: z
    .array(
      z
        .string()
        .refine(isAmenityCode, { message: `Unknown amenity code; known codes: ${AMENITY_CODES.join(', ')}` }),
    )
    .max(AMENITY_CODES.length)
    .transform((codes) => [...new Set(codes)])
    .nullable(),
  address: z.string().trim().min(1).max(500).nullable(),
  latitude: z.number().min(-90).max(90).nullable(),
  longitude: z.number().min(-180).max(180).nullable(),
  location_precision: z
    .enum(LOCATION_PRECISIONS)
    .describe(
      'exact: coordinates shown as given; approximate: rounded to about 1 km on the public site; hidden: never shown on the public site',
    )
    .nullable(),
  is_featured: z.boolean().nullable(),
  video_url: HttpsUrl.nullable(),
  tour_url: HttpsUrl.nullable(),
  highlights: z
    .array(z.string().trim().min(1).max(120))
    .max(MAX_HIGHLIGHTS, `At most ${MAX_HIGHLIGHTS} highlights per language`)
    .nullable(),
  ai_enrichment: z.boolean().describe('false: writes never queue AI enrichment for this listing'),
  place_code: z.string().trim().min(1).max(32).nullable(),
  internal_ref: z.string().trim().min(1).max(255).nullable(),
  agent_id: Uuid.nullable(),
  agent_email: z.string().trim().max(320).toLowerCase().nullable(),
};

const PropertyFields = z.object(writableFields);

/** POST: only title is required. */
export const PropertyCreate = PropertyFields.partial().extend({ title: writableFields.title });

/** PATCH: every field optional; null clears it (title cannot be cleared). */
export const PropertyUpdate = PropertyFields.partial();

export type PropertyCreateInput = z.infer<typeof PropertyCreate>;
export type PropertyUpdateInput = z.infer<typeof PropertyUpdate>;

export const PropertyPath = z.object({ property_id: Uuid });
export const PropertyRefPath = z.object({ internal_ref: z.string().trim().min(1).max(255) });

/** `?lang=`: a Site Language of the Tenant (checked against the Tenant by the service). */
export const LanguageQuery = z.object({
  lang: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'Must be a language code such as en or pt-BR')
    .optional(),
});

export const PropertyListQuery = PageQuery.extend({
  include_archived: QueryBoolean.optional().default(false),
}).extend(LanguageQuery.shape);

export const ListingPlaceOut = z.object({
  code: z.string(),
  path: z.array(PathEntryOut).describe('Root first'),
  short: z.string().describe('The card string'),
  long: z.string().describe('The detail string'),
});

export const ListingAreaOut = z.object({
  id: Uuid,
  kind: z.enum(['region', 'zone', 'neighborhood', 'community']),
  name: z.string(),
  via: z.enum(['rule', 'manual', 'excluded']),
});

export const PropertyOut = z.object({
  id: Uuid,
  title: z.string(),
  description: z.string().nullable(),
  highlights: z.array(z.string()),
  seo_description: z.string().nullable(),
  language: z.string().describe('The language of title, description and highlights'),
  source_language: z.string().describe("The language of the listing's own text"),
  untranslated: z
    .array(z.enum(['title', 'description']))
    .describe('Fields shown in the source language because the requested language has none yet'),
  listing_type: z.enum(['sale', 'rent']).nullable(),
  price: z.string().nullable(),
  currency: z.string().nullable(),
  rent_price: z.string().nullable(),
  property_type: z.string().nullable(),
  bedrooms: z.number().int().nullable(),
  bathrooms: z.string().nullable(),
  area: z.string().nullable(),
  lot_area: z.string().nullable(),
  parking_spaces: z.number().int().nullable(),
  year_built: z.number().int().nullable(),
  floor: z.number().int().nullable(),
  hoa_fee: z.string().nullable(),
  amenities: z.array(z.string()),
  address: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  location_precision: z.enum(LOCATION_PRECISIONS),
  is_featured: z.boolean(),
  video_url: z.string().nullable(),
  tour_url: z.string().nullable(),
  place_code: z.string().nullable(),
  place: ListingPlaceOut.nullable(),
  areas: z.array(ListingAreaOut),
  agent_id: Uuid.nullable(),
  internal_ref: z.string().nullable(),
  ai_enrichment: z.boolean(),
  enrichment_status: z.enum(ENRICHMENT_STATUSES).nullable().describe('null: enrichment was never requested'),
  status: z.enum(['draft', 'live', 'archived']),
  needs_location: z.boolean(),
  origin: z.enum(['api', 'import', 'console']),
  slug: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
});
export type PropertyOutput = z.infer<typeof PropertyOut>;

/** Storage record → the public listing, in `language` (its own language when omitted). */
export function toPropertyOut(
  p: PropertyRecord,
  options: { language?: string | undefined; areas?: AreaMembershipRecord[] } = {},
): PropertyOutput {
  const text = viewTexts(p, options.language);
  return {
    id: p.id,
    title: text.title,
    description: text.description,
    highlights: text.highlights,
    seo_description: text.seo_description,
    language: text.language,
    source_language: p.sourceLanguage,
    untranslated: text.untranslated,
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
    amenities: p.amenities ?? [],
    address: p.address ?? null,
    latitude: p.latitude ?? null,
    longitude: p.longitude ?? null,
    location_precision: p.locationPrecision ?? 'exact',
    is_featured: p.isFeatured ?? false,
    video_url: p.videoUrl ?? null,
    tour_url: p.tourUrl ?? null,
    place_code: p.placeCode ?? null,
    place:
      p.placeCode && p.placePath?.length
        ? { code: p.placeCode, path: p.placePath, ...placeLabels(p.placePath) }
        : null,
    areas: (options.areas ?? []).map((m) => ({
      id: m.areaId,
      kind: m.areaKind,
      name: m.areaName,
      via: m.via,
    })),
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
