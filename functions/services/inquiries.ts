import type { InquiryListInput } from '../contract/inquiries.ts';
import { type InquiryRecord, queryInquiries, requireInquiry } from '../data/inquiries.ts';
import { pageFrom, readCursor } from './paging.ts';

export async function readInquiry(tenantId: string, id: string): Promise<InquiryRecord> {
  return requireInquiry(tenantId, id);
}

/** GET /v1/inquiries: a Lead's (gsi2), a listing's (gsi3) or all (gsi1), by (updated_at, id). */
export async function listInquiries<O>(
  tenantId: string,
  q: InquiryListInput,
  present: (inquiry: InquiryRecord) => O,
) {
  const scope = [tenantId, 'inquiries', q.updated_since ?? '', q.lead_id ?? '', q.property_id ?? ''].join(
    ':',
  );
  const after = readCursor(q.cursor, scope);
  const items = await queryInquiries({
    tenantId,
    limit: q.limit,
    after,
    since: q.updated_since,
    leadId: q.lead_id,
    propertyId: q.property_id,
  });
  return pageFrom(items, q.limit, scope, present);
}
