import * as z from 'zod/mini';
import type { LinkedListing } from '../data/lead-listings.ts';
import { LEAD_LISTING_ROLES, LEAD_LISTING_SOURCES } from '../domain/activities.ts';
import { Uuid } from './shared.ts';

export const LeadPropertyPath = z.object({ lead_id: Uuid });

/** POST /v1/leads/{lead_id}/properties: links a listing to the Lead (docs/activities.md). */
export const LeadPropertyCreate = z.object({
  property_id: Uuid.check(z.describe('A listing of the same tenant')),
  role: z.enum(LEAD_LISTING_ROLES, { message: `Must be one of ${LEAD_LISTING_ROLES.join(', ')}` }),
});

export const LeadPropertyOut = z.object({
  property_id: Uuid,
  property_title: z.string().check(z.describe("The listing's title, in its own language")),
  role: z.enum(LEAD_LISTING_ROLES),
  source: z
    .enum(LEAD_LISTING_SOURCES)
    .check(
      z.describe(
        'How the link first came about: inquiry (ingestion), manual (this endpoint), match (matches sent)',
      ),
    ),
  created_at: z.string(),
});
export type LeadPropertyOutput = z.infer<typeof LeadPropertyOut>;

export const LeadPropertyList = z.object({ data: z.array(LeadPropertyOut) });

export function toLeadPropertyOut({ link, title }: LinkedListing): LeadPropertyOutput {
  return {
    property_id: link.propertyId,
    property_title: title,
    role: link.role,
    source: link.source,
    created_at: link.createdAt,
  };
}
