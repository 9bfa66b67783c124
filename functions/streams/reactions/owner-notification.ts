import { getAgent } from '../../data/agents.ts';
import { Inquiry } from '../../data/entities/inquiry.ts';
import { Lead } from '../../data/entities/lead.ts';
import { getLead } from '../../data/leads.ts';
import { getListing } from '../../data/listings.ts';
import { onceByReceipt } from '../../data/reaction-receipts.ts';
import { assignmentNotice, inquiryNotice, type Notice } from '../../domain/owner-notices.ts';
import { logger } from '../../kernel/logger.ts';
import { BusinessMetric, countMetric } from '../../kernel/metrics.ts';
import { emailErrorName, emails, isPermanentEmailFailure } from '../../kernel/ports/email.ts';
import type { TableChange } from '../table-change.ts';

/** A notice to send: to which Agent, about what (its receipt key), and its text. */
interface PendingNotice {
  tenantId: string;
  agentId: string;
  receiptKey: string;
  notice: () => Promise<Notice>;
}

/**
 * A new Inquiry tells the Lead's Owner (rule 2): the Lead as it is now (the Inquiry was written in
 * its transaction, so the Owner it got then is there) and the listing asked about.
 */
async function inquiryNoticeOf(change: TableChange): Promise<PendingNotice | undefined> {
  if (change.kind !== 'INSERT' || !change.newImage) return undefined;
  const inquiry = Inquiry.parse({ Item: change.newImage }).data;
  if (!inquiry) return undefined;
  const lead = await getLead(inquiry.tenantId, inquiry.leadId, { consistent: true });
  if (!lead?.assignedAgentId) return undefined;
  return {
    tenantId: inquiry.tenantId,
    agentId: lead.assignedAgentId,
    receiptKey: `owner-notice#inquiry#${inquiry.id}`,
    notice: async () => {
      const listing = inquiry.propertyId ? await getListing(inquiry.tenantId, inquiry.propertyId) : undefined;
      return inquiryNotice(lead, inquiry, listing);
    },
  };
}

/**
 * A Lead whose assignment notice id changed was given an Owner by the rule outside an Inquiry (a
 * walk-in add, an ingested note): that Agent is told they own it now.
 */
function assignmentNoticeOf(change: TableChange): PendingNotice | undefined {
  const noticeId = change.newImage?.assignmentNoticeId;
  if (typeof noticeId !== 'string' || noticeId === change.oldImage?.assignmentNoticeId) return undefined;
  const lead = Lead.parse({ Item: change.newImage ?? {} }).data;
  if (!lead?.assignedAgentId) return undefined;
  return {
    tenantId: lead.tenantId,
    agentId: lead.assignedAgentId,
    receiptKey: `owner-notice#assignment#${noticeId}`,
    notice: async () => assignmentNotice(lead),
  };
}

/**
 * The owner-notification reaction: emails the Owner of a Lead about a new Inquiry, or about a Lead
 * the rule gave them. At most once per notice (a receipt once sent); an email that failed for now
 * (throttled, an outage) fails the record, so the consumer retries it rather than losing the email.
 * An email SES refuses for good (sandbox, sending paused, rejected) is parked: logged as an error
 * with the notice's ids and SES's error code (never its subject or SES's message, which name the
 * Lead and the address) and counted (OwnerNoticesParked, which an operator alarms on), and the record
 * goes on; failing it would only retry it until the event source discards it.
 */
export async function ownerNotification(change: TableChange): Promise<void> {
  const pending =
    change.entity === 'inquiry'
      ? await inquiryNoticeOf(change)
      : change.entity === 'lead' && change.kind !== 'REMOVE'
        ? assignmentNoticeOf(change)
        : undefined;
  if (!pending) return;
  const { tenantId, agentId, receiptKey } = pending;
  await onceByReceipt(tenantId, receiptKey, async () => {
    const agent = await getAgent(tenantId, agentId);
    if (!agent) return;
    const { subject, text } = await pending.notice();
    try {
      await emails().send({ tenantId, to: agent.email, subject, text });
    } catch (error) {
      if (!isPermanentEmailFailure(error)) throw error;
      // Ids and the service's error code only: the subject names the Lead, and SES's message names
      // the refused address.
      logger.error('owner notice parked: the email service refuses it for good', {
        tenantId,
        agentId,
        receiptKey,
        errorName: emailErrorName(error),
      });
      countMetric(BusinessMetric.OwnerNoticesParked);
    }
  });
}
