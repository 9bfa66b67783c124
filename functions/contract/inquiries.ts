import * as z from 'zod/mini';
import type { InquiryRecord } from '../data/inquiries.ts';
import { PageQuery, Uuid } from './shared.ts';

export const InquiryPath = z.object({ inquiry_id: Uuid });

export const InquiryListQuery = z.extend(PageQuery, {
  lead_id: z.optional(Uuid).check(z.describe("Only this Lead's Inquiries")),
  property_id: z.optional(Uuid).check(z.describe('Only Inquiries about this listing')),
});
export type InquiryListInput = z.infer<typeof InquiryListQuery>;

export const InquiryOut = z.object({
  id: Uuid,
  lead_id: Uuid,
  property_id: z.nullable(Uuid).check(z.describe('The listing asked about; null for a general inquiry')),
  channel: z.enum(['form', 'concierge']),
  via: z
    .nullable(z.enum(['widget']))
    .check(z.describe("widget: sent from the agency's website through the site API")),
  page_url: z
    .nullable(z.string())
    .check(
      z.describe(
        "The page the website form was sent from: its Referer when that is an http(s) URL on one of the publishable key's origins; else null",
      ),
    ),
  message: z.nullable(z.string()),
  source: z.nullable(z.string()).check(z.describe('Free-text attribution (the ingest source)')),
  campaign: z.nullable(z.string()),
  occurred_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type InquiryOutput = z.infer<typeof InquiryOut>;

export function toInquiryOut(inquiry: InquiryRecord): InquiryOutput {
  return {
    id: inquiry.id,
    lead_id: inquiry.leadId,
    property_id: inquiry.propertyId ?? null,
    channel: inquiry.channel,
    via: inquiry.via ?? null,
    page_url: inquiry.pageUrl ?? null,
    message: inquiry.message ?? null,
    source: inquiry.source ?? null,
    campaign: inquiry.campaign ?? null,
    occurred_at: inquiry.occurredAt,
    created_at: inquiry.createdAt,
    updated_at: inquiry.updatedAt,
  };
}
