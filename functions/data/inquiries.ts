import type { EntityItem } from 'electrodb';
import { NotFoundError } from '../kernel/errors.ts';
import { Inquiry } from './entities/inquiry.ts';

export type InquiryRecord = EntityItem<typeof Inquiry>;

export async function getInquiry(tenantId: string, id: string): Promise<InquiryRecord | undefined> {
  // Consistent, like every by-id read (see getLead): the scoring an Inquiry asks for reads it at once.
  const { data } = await Inquiry.get({ tenantId, id }).go({ consistent: true });
  return data ?? undefined;
}

/** The Inquiry, or 404 (another Tenant's Inquiry is simply not found). */
export async function requireInquiry(tenantId: string, id: string): Promise<InquiryRecord> {
  const inquiry = await getInquiry(tenantId, id);
  if (!inquiry) throw new NotFoundError('No inquiry with this id');
  return inquiry;
}

/** Stores an Inquiry on its own (when its Lead needs no write; otherwise see writeLead). */
export async function insertInquiry(record: InquiryRecord): Promise<void> {
  await Inquiry.create(record).go();
}

export interface InquiryPageQuery {
  tenantId: string;
  limit: number;
  after?: { updatedAt: string; id: string } | undefined;
  since?: string | undefined;
  leadId?: string | undefined;
  propertyId?: string | undefined;
}

/**
 * Inquiries least recently updated first, one more than `limit`: a Lead's (gsi2, the listing
 * filter then a filter expression), a listing's (gsi3) or the Tenant's (gsi1).
 */
type InquiryAttributes = Parameters<Parameters<ReturnType<typeof Inquiry.query.byUpdated>['where']>[0]>[0];
type WhereOps = Parameters<Parameters<ReturnType<typeof Inquiry.query.byUpdated>['where']>[0]>[1];

/** What the three list indexes have in common: the sort key (updatedAt, id) and the attributes. */
interface Ranged {
  where(cb: (a: InquiryAttributes, op: WhereOps) => string): Ranged;
  go(options: { limit: number; count: number }): Promise<{ data: InquiryRecord[] }>;
}
interface Partition extends Ranged {
  gt(sk: { updatedAt: string; id: string }): Ranged;
  gte(sk: { updatedAt: string }): Ranged;
}

export async function queryInquiries(q: InquiryPageQuery): Promise<InquiryRecord[]> {
  const { tenantId, leadId, propertyId } = q;
  const partition = (leadId !== undefined
    ? Inquiry.query.byLead({ tenantId, leadId })
    : propertyId !== undefined
      ? Inquiry.query.byListing({ tenantId, propertyKey: propertyId })
      : Inquiry.query.byUpdated({ tenantId })) as unknown as Partition;
  const ranged = q.after
    ? partition.gt(q.after)
    : q.since
      ? partition.gte({ updatedAt: q.since })
      : partition;
  const filtered =
    leadId !== undefined && propertyId !== undefined
      ? ranged.where((a, op) => op.eq(a.propertyKey, propertyId))
      : ranged;
  const { data } = await filtered.go({ limit: q.limit + 1, count: q.limit + 1 });
  return data;
}

/** A Lead's Inquiries, newest first (the scorer's input). */
export async function listLeadInquiries(
  tenantId: string,
  leadId: string,
  limit = 50,
): Promise<InquiryRecord[]> {
  const { data } = await Inquiry.query
    .byLead({ tenantId, leadId })
    .go({ order: 'desc', limit, count: limit });
  return data;
}
