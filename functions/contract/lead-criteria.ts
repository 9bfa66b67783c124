import * as z from 'zod/mini';
import type { AreaRecord } from '../data/areas.ts';
import type { LeadCriteriaRecord } from '../data/lead-criteria.ts';
import type { MatchListing } from '../data/matches.ts';
import type { PlaceRecord } from '../data/places.ts';
import { AMENITY_CODES } from '../domain/amenities.ts';
import { AREA_KINDS } from '../domain/areas.ts';
import {
  CRITERIA_LIMITS,
  criteriaProblems,
  MATCH_REASONS,
  MAX_SEND,
  numberToDecimal,
} from '../domain/criteria.ts';
import { placeLabels } from './places.ts';
import {
  AmenityCode,
  CurrencyCode,
  integerBetween,
  jsonSchemaIfThen,
  Money,
  nonNegativeDecimal,
  setOf,
  trimmedText,
  Uuid,
} from './shared.ts';

export const LeadPath = z.object({ lead_id: Uuid });

/** A JSON number of at least 0 or one of the API's decimal strings, stored as a decimal string. */
function numberOrDecimal(decimal: z.ZodMiniType<string, string>) {
  return z.pipe(
    z.pipe(
      z.union([z.number(), z.string()], { error: 'Must be a number (at least 0) or a decimal string' }),
      z.transform((v) => (typeof v === 'number' ? numberToDecimal(v) : v)),
    ),
    decimal,
  );
}

const Bathrooms = nonNegativeDecimal({ maxIntegerDigits: 3, maxFractionDigits: 1 });

/** A UUID, compared and stored lower-case. */
const LowerCaseUuid = z.pipe(
  Uuid,
  z.transform((id) => id.toLowerCase()),
);

/**
 * LeadCriteriaIn (docs/criteria-matches.md): the Lead's whole criteria. An omitted field is cleared; arrays
 * also accept null for empty. Arrays are sets: duplicates are dropped, first occurrence kept.
 */
export const LeadCriteriaIn = z
  .object({
    listing_type: z.nullish(z.enum(['sale', 'rent'])),
    min_price: z
      .nullish(numberOrDecimal(Money))
      .check(
        z.describe(
          'A number of at least 0 (250000) or a decimal string ("250000", "249999.50"), answered as a decimal string at the scale sent; needs currency',
        ),
      ),
    max_price: z
      .nullish(numberOrDecimal(Money))
      .check(z.describe('A number of at least 0 or a decimal string; needs currency; at least min_price')),
    currency: z
      .nullish(CurrencyCode)
      .check(z.describe('ISO 4217, stored upper-case; required with a price bound')),
    min_beds: z.nullish(integerBetween(0, 1000)),
    min_baths: z
      .nullish(numberOrDecimal(Bathrooms))
      .check(z.describe('A number of at least 0 or a decimal string ("1.5"), compared exactly')),
    property_types: z
      .nullish(
        setOf(
          trimmedText(CRITERIA_LIMITS.propertyTypeLength).check(z.toLowerCase()),
          CRITERIA_LIMITS.propertyTypes,
        ),
      )
      .check(z.describe('Stored lower-case; a match has one of them')),
    amenities: z
      .nullish(setOf(AmenityCode, AMENITY_CODES.length))
      .check(z.describe('Every one must be present on a match')),
    place_codes: z
      .nullish(setOf(trimmedText(CRITERIA_LIMITS.placeCodeLength), CRITERIA_LIMITS.placeCodes))
      .check(z.describe('A match is in one of these Places or under one')),
    area_ids: z
      .nullish(setOf(LowerCaseUuid, CRITERIA_LIMITS.areaIds))
      .check(
        z.describe(
          "A match is a member of one of these Areas (by rule or by hand, not excluded); each must be one of the Tenant's Areas (GET /v1/areas), else 422",
        ),
      ),
    notes: z.nullish(z.string().check(z.maxLength(CRITERIA_LIMITS.notesLength))),
  })
  .check(
    // A price bound needs a currency (criteriaProblems); max_price ≥ min_price needs the values.
    z.meta(
      jsonSchemaIfThen(
        {
          anyOf: [
            { required: ['min_price'], properties: { min_price: { not: { type: 'null' } } } },
            { required: ['max_price'], properties: { max_price: { not: { type: 'null' } } } },
          ],
        },
        { required: ['currency'], properties: { currency: { type: 'string' } } },
      ),
    ),
    z.superRefine((c, ctx) => {
      for (const problem of criteriaProblems({
        minPrice: c.min_price,
        maxPrice: c.max_price,
        currency: c.currency,
      })) {
        ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
      }
    }),
  );
export type LeadCriteriaInput = z.infer<typeof LeadCriteriaIn>;

/** PlaceHitOut (its fields are "not shown" by the interface): a Place with its card and detail labels. */
export const PlaceHitOut = z.object({
  code: z.string(),
  name: z.string(),
  kind: z.string(),
  short: z.string().check(z.describe('Card label: the Place and its parent')),
  long: z.string().check(z.describe('Detail label: the whole path, most specific first')),
});

export const AreaRefOut = z.object({ id: Uuid, kind: z.enum(AREA_KINDS), name: z.string() });

export const LeadCriteriaOut = z.object({
  listing_type: z.nullable(z.enum(['sale', 'rent'])),
  min_price: z.nullable(z.string()),
  max_price: z.nullable(z.string()),
  currency: z.nullable(z.string()),
  min_beds: z.nullable(z.number().check(z.int())),
  min_baths: z.nullable(z.string()),
  property_types: z.array(z.string()),
  amenities: z.array(z.string()),
  place_codes: z.array(z.string()),
  area_ids: z.array(Uuid),
  notes: z.nullable(z.string()),
  updated_at: z.nullable(z.string()).check(z.describe('null while no criteria have been saved')),
  places: z.array(PlaceHitOut).check(z.describe('Labels of place_codes; a code no longer known is left out')),
  areas: z
    .array(AreaRefOut)
    .check(z.describe('Labels of area_ids; an Area the Tenant no longer has is left out')),
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
  slug: z.nullable(z.string()),
  listing_type: z.nullable(z.enum(['sale', 'rent'])),
  property_type: z.nullable(z.string()),
  price: z.nullable(z.string()),
  rent_price: z.nullable(z.string()),
  currency: z.nullable(z.string()),
  bedrooms: z.nullable(z.number().check(z.int())),
  bathrooms: z.nullable(z.string()),
  place_code: z.nullable(z.string()),
  created_at: z.string(),
  reasons: z
    .array(z.enum(MATCH_REASONS))
    .check(
      z.describe('The criteria the listing met, named by their LeadCriteriaIn field (price: min/max_price)'),
    ),
  sent_at: z
    .nullable(z.string())
    .check(z.describe('When the listing was last sent to the Lead; null if never')),
});
export type LeadMatchOutput = z.infer<typeof LeadMatchOut>;

export const LeadMatchList = z.object({
  data: z.array(LeadMatchOut).check(z.describe('Newest listing first, at most 50')),
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
    .array(LowerCaseUuid)
    .check(
      z.minLength(1, 'Send at least one property_id'),
      z.maxLength(MAX_SEND, `At most ${MAX_SEND} listings per send`),
      z.describe('Listings that are current matches of the Lead; a repeated id is sent once'),
    ),
});

export const MatchSendOut = z.object({
  sent: z.array(z.object({ property_id: Uuid, sent_at: z.string() })),
});
