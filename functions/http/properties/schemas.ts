import * as z from 'zod';
import type { PropertyRecord } from '../../data/properties.ts';
import { listingStatus, needsLocation } from '../../domain/property.ts';
import { CurrencyCode, Money, nonNegativeDecimal, PageQuery, QueryBoolean, Uuid } from '../shared/schemas.ts';

/** Writable listing fields (interface §2.4); unknown fields are ignored, read-only ones too. */
const writableFields = {
  title: z.string().trim().min(1, 'Must not be empty').max(255),
  description: z.string().max(20_000).nullable(),
  listing_type: z.enum(['sale', 'rent']).nullable(),
  price: Money.nullable(),
  currency: CurrencyCode.nullable(),
  rent_price: Money.nullable(),
  property_type: z.string().trim().min(1).max(100).nullable(),
  bedrooms: z.number().int('Must be an integer').min(0).max(1000).nullable(),
  bathrooms: nonNegativeDecimal({ maxIntegerDigits: 3, maxFractionDigits: 1 }).nullable(),
  place_code: z.string().trim().min(1).max(32).nullable(),
  internal_ref: z.string().trim().min(1).max(255).nullable(),
};

const PropertyFields = z.object(writableFields);

/** POST: only title is required. */
export const PropertyCreate = PropertyFields.partial().extend({ title: writableFields.title });

/** PATCH: every field optional; null clears it (title cannot be cleared). */
export const PropertyUpdate = PropertyFields.partial();

export type PropertyCreateInput = z.infer<typeof PropertyCreate>;
export type PropertyUpdateInput = z.infer<typeof PropertyUpdate>;

export const PropertyPath = z.object({ property_id: Uuid });

export const PropertyListQuery = PageQuery.extend({
  include_archived: QueryBoolean.optional().default(false),
});

export const PropertyOut = z.object({
  id: Uuid,
  title: z.string(),
  description: z.string().nullable(),
  listing_type: z.enum(['sale', 'rent']).nullable(),
  price: z.string().nullable(),
  currency: z.string().nullable(),
  rent_price: z.string().nullable(),
  property_type: z.string().nullable(),
  bedrooms: z.number().int().nullable(),
  bathrooms: z.string().nullable(),
  place_code: z.string().nullable(),
  internal_ref: z.string().nullable(),
  status: z.enum(['draft', 'live', 'archived']),
  needs_location: z.boolean(),
  origin: z.enum(['api', 'import', 'console']),
  slug: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
});
export type PropertyOutput = z.infer<typeof PropertyOut>;

/** Storage record → the public listing. */
export function toPropertyOut(p: PropertyRecord): PropertyOutput {
  return {
    id: p.id,
    title: p.title,
    description: p.description ?? null,
    listing_type: p.listingType ?? null,
    price: p.price ?? null,
    currency: p.currency ?? null,
    rent_price: p.rentPrice ?? null,
    property_type: p.propertyType ?? null,
    bedrooms: p.bedrooms ?? null,
    bathrooms: p.bathrooms ?? null,
    place_code: p.placeCode ?? null,
    internal_ref: p.internalRef ?? null,
    status: listingStatus(p),
    needs_location: needsLocation(p),
    origin: p.origin,
    slug: p.slug,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    archived_at: p.archivedAt ?? null,
  };
}
