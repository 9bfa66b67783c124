import * as z from 'zod';
import type { InquiryRecord } from '../../data/inquiries.ts';
import { PageQuery, Uuid } from '../shared/schemas.ts';

export const InquiryPath = z.object({ inquiry_id: Uuid });

export const InquiryListQuery = PageQuery.extend({
  lead_id: Uuid.optional().describe("Only this Lead's Inquiries"),
  property_id: Uuid.optional().describe('Only Inquiries about this listing'),
});
export type InquiryListInput = z.infer<typeof InquiryListQuery>;

export const InquiryOut = z.object({
  id: Uuid,
  lead_id: Uuid,
  property_id: Uuid.nullable().describe('The listing asked about; null for a general inquiry'),
  channel: z.enum(['form', 'concierge']),
  message: z.string().nullable(),
  source: z.string().nullable().describe('Free-text attribution (the ingest source)'),
  campaign: z.string().nullable(),
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
    message: inquiry.message ?? null,
    source: inquiry.source ?? null,
    campaign: inquiry.campaign ?? null,
    occurred_at: inquiry.occurredAt,
    created_at: inquiry.createdAt,
    updated_at: inquiry.updatedAt,
  };
}
