import * as z from 'zod';
import type { AreaRecord } from '../../data/areas.ts';
import type { LeadCriteriaRecord } from '../../data/lead-criteria.ts';
import type { MatchListing } from '../../data/matches.ts';
import type { PlaceRecord } from '../../data/places.ts';
import { AMENITY_CODES, isAmenityCode } from '../../domain/amenities.ts';
import { AREA_KINDS } from '../../domain/areas.ts';
import {
  CRITERIA_LIMITS,
  criteriaProblems,
  MATCH_REASONS,
  MAX_SEND,
  numberToDecimal,
} from '../../domain/criteria.ts';
import { placeLabels } from '../places/schemas.ts';
import { CurrencyCode, Money, nonNegativeDecimal, Uuid } from '../shared/schemas.ts';

export const LeadPath = z.object({ lead_id: Uuid });

/** A JSON number of at least 0 or a decimal string (interface §2.1), stored as a decimal string. */
function numberOrDecimal(decimal: z.ZodType<string, string>) {
  return z
    .union([z.number(), z.string()], { error: 'Must be a number (at least 0) or a decimal string' })
    .transform((v) => (typeof v === 'number' ? numberToDecimal(v) : v))
    .pipe(decimal);
}

const Bathrooms = nonNegativeDecimal({ maxIntegerDigits: 3, maxFractionDigits: 1 });

/** Arrays are sets: duplicates are dropped, first occurrence kept. */
const unique = <T>(items: T[]) => [...new Set(items)];

/**
 * LeadCriteriaIn (interface §2.3): the Lead's whole criteria. An omitted field is cleared; arrays
 * also accept null for empty.
 */
export const LeadCriteriaIn = z
  .object({
    listing_type: z.enum(['sale', 'rent']).nullish(),
    min_price: numberOrDecimal(Money)
      .nullish()
      .describe('A number of at least 0 or a decimal string ("250000.00"); needs currency'),
    max_price: numberOrDecimal(Money)
      .nullish()
      .describe('A number of at least 0 or a decimal string; needs currency; at least min_price'),
    currency: CurrencyCode.nullish().describe('ISO 4217, stored upper-case; required with a price bound'),
    min_beds: z.number().int('Must be an integer').min(0).max(1000).nullish(),
    min_baths: numberOrDecimal(Bathrooms)
      .nullish()
      .describe('A number of at least 0 or a decimal string ("1.5"), compared exactly'),
    property_types: z
      .array(z.string().trim().min(1).max(CRITERIA_LIMITS.propertyTypeLength).toLowerCase())
      .max(CRITERIA_LIMITS.propertyTypes)
      .transform(unique)
      .nullish()
      .describe('Stored lower-case; a match has one of them'),
    amenities: z
      .array(
        z.string().refine(isAmenityCode, {
          message: `Unknown amenity code; known codes: ${AMENITY_CODES.join(', ')}`,
        }),
      )
      .max(AMENITY_CODES.length)
      .transform(unique)
      .nullish()
      .describe('Every one must be present on a match'),
    place_codes: z
      .array(z.string().trim().min(1).max(CRITERIA_LIMITS.placeCodeLength))
      .max(CRITERIA_LIMITS.placeCodes)
      .transform(unique)
      .nullish()
      .describe('A match is in one of these Places or under one'),
    area_ids: z
      .array(Uuid.transform((id) => id.toLowerCase()))
      .max(CRITERIA_LIMITS.areaIds)
      .transform(unique)
      .nullish()
      .describe('A match is a member of one of these Areas (by rule or by hand, not excluded)'),
    notes: z.string().max(CRITERIA_LIMITS.notesLength).nullish(),
  })
  .superRefine((c, ctx) => {
    for (const problem of criteriaProblems({
      minPrice: c.min_price,
      maxPrice: c.max_price,
      currency: c.currency,
    })) {
      ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
    }
  });
export type LeadCriteriaInput = z.infer<typeof LeadCriteriaIn>;

/** PlaceHitOut (its fields are "not shown" by the interface): a Place with its card and detail labels. */
export const PlaceHitOut = z.object({
  code: z.string(),
  name: z.string(),
  kind: z.string(),
  short: z.string().describe('Card label: the Place and its parent'),
  long: z.string().describe('Detail label: the whole path, most specific first'),
});

export const AreaRefOut = z.object({ id: Uuid, kind: z.enum(AREA_KINDS), name: z.string() });

export const LeadCriteriaOut = z.object({
  listing_type: z.enum(['sale', 'rent']).nullable(),
  min_price: z.string().nullable(),
  max_price: z.string().nullable(),
  currency: z.string().nullable(),
  min_beds: z.number().int().nullable(),
  min_baths: z.string().nullable(),
  property_types: z.array(z.string()),
  amenities: z.array(z.string()),
  place_codes: z.array(z.string()),
  area_ids: z.array(Uuid),
  notes: z.string().nullable(),
  updated_at: z.string().nullable().describe('null while no criteria have been saved'),
  places: z.array(PlaceHitOut).describe('Labels of place_codes; a code no longer known is left out'),
  areas: z.array(AreaRefOut).describe('Labels of area_ids; an Area the Tenant no longer has is left out'),
});
export type LeadCriteriaOutput = z.infer<typeof LeadCriteriaOut>;

/** Saved criteria (or none) with the labels of its Places and Areas → LeadCriteriaOut. */
export function toLeadCriteriaOut(
  c: LeadCriteriaRecord | undefined,
  labels: { places: Map<string, PlaceRecord>; areas: Map<string, AreaRecord> },
): LeadCriteriaOutput {
  const placeCodes = c?.placeCodes ?? [];
  const areaIds = c?.areaIds ?? [];
  return {
    listing_type: c?.listingType ?? null,
    min_price: c?.minPrice ?? null,
    max_price: c?.maxPrice ?? null,
    currency: c?.currency ?? null,
    min_beds: c?.minBeds ?? null,
    min_baths: c?.minBaths ?? null,
    property_types: c?.propertyTypes ?? [],
    amenities: c?.amenities ?? [],
    place_codes: placeCodes,
    area_ids: areaIds,
    notes: c?.notes ?? null,
    updated_at: c?.updatedAt ?? null,
    places: placeCodes.flatMap((code) => {
      const p = labels.places.get(code);
      return p ? [{ code: p.code, name: p.name, kind: p.kind, ...placeLabels(p.path) }] : [];
    }),
    areas: areaIds.flatMap((id) => {
      const a = labels.areas.get(id);
      return a ? [{ id: a.id, kind: a.kind, name: a.name }] : [];
    }),
  };
}

export const LeadMatchOut = z.object({
  property_id: Uuid,
  title: z.string(),
  slug: z.string().nullable(),
  listing_type: z.enum(['sale', 'rent']).nullable(),
  property_type: z.string().nullable(),
  price: z.string().nullable(),
  rent_price: z.string().nullable(),
  currency: z.string().nullable(),
  bedrooms: z.number().int().nullable(),
  bathrooms: z.string().nullable(),
  place_code: z.string().nullable(),
  created_at: z.string(),
  reasons: z
    .array(z.enum(MATCH_REASONS))
    .describe('The criteria the listing met, named by their LeadCriteriaIn field (price: min/max_price)'),
  sent_at: z.string().nullable().describe('When the listing was last sent to the Lead; null if never'),
});
export type LeadMatchOutput = z.infer<typeof LeadMatchOut>;

export const LeadMatchList = z.object({
  data: z.array(LeadMatchOut).describe('Newest listing first, at most 50'),
});

export function toLeadMatchOut(
  listing: MatchListing,
  reasons: LeadMatchOutput['reasons'],
  sentAt: string | undefined,
): LeadMatchOutput {
  return {
    property_id: listing.id,
    title: listing.title,
    slug: listing.slug ?? null,
    listing_type: listing.listingType ?? null,
    property_type: listing.propertyType ?? null,
    price: listing.price ?? null,
    rent_price: listing.rentPrice ?? null,
    currency: listing.currency ?? null,
    bedrooms: listing.bedrooms ?? null,
    bathrooms: listing.bathrooms ?? null,
    place_code: listing.placeCode ?? null,
    created_at: listing.createdAt,
    reasons,
    sent_at: sentAt ?? null,
  };
}

export const MatchSendIn = z.object({
  property_ids: z
    .array(Uuid.transform((id) => id.toLowerCase()))
    .min(1, 'Send at least one property_id')
    .max(MAX_SEND, `At most ${MAX_SEND} listings per send`)
    .describe('Listings that are current matches of the Lead; a repeated id is sent once'),
});

export const MatchSendOut = z.object({
  sent: z.array(z.object({ property_id: Uuid, sent_at: z.string() })),
});
