import { randomUUID } from 'node:crypto';
import { type ActivityRecord, insertActivity } from '../../data/activities.ts';
import { withoutUndefined } from '../../data/defined.ts';
import { type InquiryRecord, insertInquiry } from '../../data/inquiries.ts';
import { findLeadClaim, getLead, type LeadRecord, writeLead } from '../../data/leads.ts';
import { CONTENDED_ATTEMPTS, RETRY, withOptimisticRetry } from '../../data/optimistic.ts';
import type { TenantRecord } from '../../data/tenants.ts';
import { nextTimestamp } from '../../data/timestamps.ts';
import { type Contact, claimsOfNewContact, mergeContact } from '../../domain/lead-contact.ts';
import type { LeadSource } from '../../domain/leads.ts';
import type { OwnerChoice, PickedOwner } from '../../domain/owner-rule.ts';
import { ConflictError } from '../../kernel/errors.ts';
import { BusinessMetric, countMetric } from '../../kernel/metrics.ts';
import { pickOwner } from './owner.ts';

/** An Inquiry or an Activity written with its Lead. */
export type LeadRecordWith = { inquiry: InquiryRecord } | { activity: ActivityRecord };

export interface ContactLeadInput {
  tenant: TenantRecord;
  contact: Contact;
  /** The source of a new Lead (an existing Lead keeps its own). */
  source: LeadSource;
  campaign?: string | undefined;
  sourceDetail?: string | undefined;
  firstSeenAt: string;
  owner: OwnerChoice;
  /**
   * What to record in the Lead's own transaction (an Inquiry, or an Activity for a note), built once
   * the Lead's id is known: the Lead and its record land together or not at all.
   */
  record?: ((leadId: string, now: string) => LeadRecordWith) | undefined;
  /** The id a new Lead gets (random when omitted; a request under an Idempotency-Key derives it). */
  newLeadId?: string | undefined;
}

export interface ContactLeadResult {
  lead: LeadRecord;
  created: boolean;
  /** The Owner an existing Lead already had: the owner rule did not run for it. */
  ownerBefore?: string | undefined;
  inquiry?: InquiryRecord | undefined;
  activity?: ActivityRecord | undefined;
}

/** A new Lead of `contact`, as the first write makes it. */
function newLead(input: ContactLeadInput, id: string, owner: string | undefined, now: string): LeadRecord {
  const { contact } = input;
  return withoutUndefined({
    tenantId: input.tenant.tenantId,
    id,
    name: contact.name,
    email: contact.email,
    phone: contact.phone,
    locale: contact.locale,
    notes: contact.notes?.trim() || undefined,
    status: 'new' as const,
    source: input.source,
    sourceDetail: input.sourceDetail,
    campaign: input.campaign,
    assignedAgentId: owner,
    ownerKey: owner ?? 'unassigned',
    isActive: true,
    tierKey: 'unscored',
    firstSeenAt: input.firstSeenAt,
    lastContactAt: input.firstSeenAt,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Finds or makes the Lead of a contact (rule 1), race-safe: a new Lead is written in one
 * transaction with claims on its email and phone; when a claim is refused, another request got
 * there first, so the claim's owner is read again and the contact merged onto it. An existing Lead
 * is rewritten only if unchanged since read (else read again). 20 concurrent requests with one email
 * therefore make exactly one Lead.
 *
 * An Owner the rule picks outside an Inquiry gets an assignment notice id on the Lead: the stream
 * reaction emails them (an Inquiry's own notice tells its Owner instead).
 */
export async function findOrCreateLead(input: ContactLeadInput): Promise<ContactLeadResult> {
  const tenantId = input.tenant.tenantId;
  const { contact } = input;
  const newId = input.newLeadId ?? randomUUID();
  const noticeId = randomUUID();
  let owner: Promise<PickedOwner> | undefined;
  const ownerOnce = () => {
    owner ??= pickOwner(tenantId, input.owner);
    return owner;
  };
  // Each attempt builds its record anew, with its own timestamp.
  const recordFor = (
    leadId: string,
    now: string,
  ): Partial<{ inquiry: InquiryRecord; activity: ActivityRecord }> => input.record?.(leadId, now) ?? {};
  const noticeOf = (picked: boolean, recorded: { inquiry?: InquiryRecord | undefined }) =>
    picked && !recorded.inquiry ? noticeId : undefined;

  return withOptimisticRetry<ContactLeadResult>(
    async () => {
      const [emailOwner, phoneOwner] = await Promise.all([
        contact.email ? findLeadClaim(tenantId, 'lead-email', contact.email) : undefined,
        contact.phone ? findLeadClaim(tenantId, 'lead-phone', contact.phone) : undefined,
      ]);
      const existingId = emailOwner ?? phoneOwner;

      if (!existingId) {
        const { agentId, picked } = await ownerOnce();
        const now = nextTimestamp();
        const recorded = recordFor(newId, now);
        const next = newLead(input, newId, agentId, now);
        const notice = noticeOf(picked && agentId !== undefined, recorded);
        if (notice) next.assignmentNoticeId = notice;
        const { outcome, lead } = await writeLead({ next, claims: claimsOfNewContact(contact), ...recorded });
        if (outcome !== 'ok') return RETRY; // a claim taken meanwhile: merged onto its owner next time
        countMetric(BusinessMetric.LeadsCreated);
        return { lead, created: true, ...recorded };
      }

      const current = await getLead(tenantId, existingId, { consistent: true });
      if (!current) return RETRY;
      const merged = mergeContact(
        current,
        contact,
        {
          email: emailOwner !== undefined && emailOwner !== current.id,
          phone: phoneOwner !== undefined && phoneOwner !== current.id,
        },
        { campaign: input.campaign, sourceDetail: input.sourceDetail },
      );
      let pickedOwner = false;
      if (!current.assignedAgentId) {
        const { agentId, picked } = await ownerOnce();
        if (agentId) {
          merged.next.assignedAgentId = agentId;
          merged.changed = true;
          pickedOwner = picked;
        }
      }
      if (!merged.changed) {
        // The Lead is unchanged: its record is the only write.
        const recorded = recordFor(current.id, nextTimestamp());
        if (recorded.inquiry) await insertInquiry(recorded.inquiry);
        if (recorded.activity) await insertActivity(recorded.activity);
        countMetric(BusinessMetric.LeadsMerged);
        return { lead: current, created: false, ownerBefore: current.assignedAgentId, ...recorded };
      }
      const now = nextTimestamp(current.updatedAt);
      const recorded = recordFor(current.id, now);
      const next: LeadRecord = { ...merged.next, updatedAt: now };
      const notice = noticeOf(pickedOwner, recorded);
      if (notice) next.assignmentNoticeId = notice;
      const { outcome, lead } = await writeLead({
        previous: current,
        next,
        claims: merged.claims,
        ...recorded,
      });
      if (outcome !== 'ok') return RETRY;
      countMetric(BusinessMetric.LeadsMerged);
      return { lead, created: false, ownerBefore: current.assignedAgentId, ...recorded };
    },
    {
      attempts: CONTENDED_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('The lead was being written concurrently; retry');
      },
    },
  );
}
