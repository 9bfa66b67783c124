import type { LeadCriteriaInput } from '../contract/lead-criteria.ts';
import { type AreaRecord, getAreas } from '../data/areas.ts';
import { withoutUndefined } from '../data/defined.ts';
import {
  getLeadCriteria,
  getPlaces,
  type LeadCriteriaRecord,
  putLeadCriteria,
} from '../data/lead-criteria.ts';
import { requireLead } from '../data/leads.ts';
import type { PlaceRecord } from '../data/places.ts';
import type { Criteria } from '../domain/criteria.ts';
import { RequestValidationError } from '../kernel/errors.ts';

export interface CriteriaView {
  criteria: LeadCriteriaRecord | undefined;
  places: Map<string, PlaceRecord>;
  areas: Map<string, AreaRecord>;
}

/**
 * The Places and Areas the criteria name, for their labels: one BatchGetItem each (at most 50 of
 * each). Ones no longer known are simply absent.
 */
async function labelsOf(tenantId: string, c: LeadCriteriaRecord | undefined): Promise<CriteriaView> {
  const [places, areas] = await Promise.all([
    c?.placeCodes.length ? getPlaces(c.placeCodes) : new Map<string, PlaceRecord>(),
    c?.areaIds.length ? getAreas(tenantId, c.areaIds) : new Map<string, AreaRecord>(),
  ]);
  return { criteria: c, places, areas };
}

/** GET /v1/leads/{lead_id}/criteria: an unknown Lead (or another Tenant's) → 404. */
export async function readLeadCriteria(tenantId: string, leadId: string): Promise<CriteriaView> {
  const [, criteria] = await Promise.all([requireLead(tenantId, leadId), getLeadCriteria(tenantId, leadId)]);
  return labelsOf(tenantId, criteria);
}

/** Validated input → the stored record: null and omitted both clear. */
function toRecord(
  tenantId: string,
  leadId: string,
  input: LeadCriteriaInput,
  now: string,
): LeadCriteriaRecord {
  return withoutUndefined({
    tenantId,
    leadId,
    listingType: input.listing_type ?? undefined,
    minPrice: input.min_price ?? undefined,
    maxPrice: input.max_price ?? undefined,
    currency: input.currency ?? undefined,
    minBeds: input.min_beds ?? undefined,
    minBaths: input.min_baths ?? undefined,
    propertyTypes: input.property_types ?? [],
    amenities: input.amenities ?? [],
    placeCodes: input.place_codes ?? [],
    areaIds: input.area_ids ?? [],
    notes: input.notes ?? undefined,
    updatedAt: now,
  });
}

/**
 * Every area_ids entry must be an Area of this Tenant: an unknown id, and another Tenant's Area
 * alike, → 422 at its index, so criteria never hold a link to another Tenant's object.
 */
async function requireOwnAreas(tenantId: string, areaIds: readonly string[]): Promise<void> {
  if (areaIds.length === 0) return;
  const own = await getAreas(tenantId, areaIds);
  const issues = areaIds.flatMap((id, index) =>
    own.has(id)
      ? []
      : [
          {
            loc: ['body', 'area_ids', index],
            msg: 'No Area with this id in this tenant',
            type: 'unknown_area',
          },
        ],
  );
  if (issues.length > 0) throw new RequestValidationError(issues);
}

/**
 * PUT /v1/leads/{lead_id}/criteria: replaces the Lead's whole criteria in one write; the write
 * then asks for rescoring off the request path (criteria specificity is a scoring signal). Validation happens before anything is
 * written; an unknown Lead → 404, an Area the Tenant does not have → 422, with nothing written.
 */
export async function saveLeadCriteria(
  tenantId: string,
  leadId: string,
  input: LeadCriteriaInput,
): Promise<CriteriaView> {
  // Both checks at once; an unknown Lead (404) outranks a bad Area (422) whichever answers first.
  const checks = await Promise.allSettled([
    requireLead(tenantId, leadId),
    requireOwnAreas(tenantId, input.area_ids ?? []),
  ]);
  for (const check of checks) if (check.status === 'rejected') throw check.reason;
  const record = toRecord(tenantId, leadId, input, new Date().toISOString());
  // Rescoring is requested by a stream reaction of this write (functions/streams/reactions).
  const saved = await putLeadCriteria(record);
  return labelsOf(tenantId, saved);
}

/** The stored record as the domain's Criteria (for matching). */
export function criteriaOf(c: LeadCriteriaRecord): Criteria {
  return {
    listingType: c.listingType,
    minPrice: c.minPrice,
    maxPrice: c.maxPrice,
    currency: c.currency,
    minBeds: c.minBeds,
    minBaths: c.minBaths,
    propertyTypes: c.propertyTypes,
    amenities: c.amenities,
    placeCodes: c.placeCodes,
    areaIds: c.areaIds,
    notes: c.notes,
  };
}
