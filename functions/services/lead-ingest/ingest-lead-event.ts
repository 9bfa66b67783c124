import type { LeadIngestInput } from '../../contract/leads.ts';
import { getActivity, newActivityRecord } from '../../data/activities.ts';
import type { AgentRecord } from '../../data/agents.ts';
import { withoutUndefined } from '../../data/defined.ts';
import { getInquiry } from '../../data/inquiries.ts';
import { getLead, type LeadRecord } from '../../data/leads.ts';
import { INGEST_WARNING_CODES, type IngestWarning, isBackfill } from '../../domain/leads.ts';
import { type IdSource, randomIds } from '../../kernel/ids.ts';
import { BusinessMetric, countMetric } from '../../kernel/metrics.ts';
import type { Caller } from '../caller.ts';
import { linkLeadListing } from '../lead-listings.ts';
import { contactOf } from './contact.ts';
import { type ContactLeadResult, findOrCreateLead, type LeadRecordWith } from './find-or-create-lead.ts';
import { resolveListing, resolveNamedAgent } from './resolve.ts';

/**
 * An ingestion warning reports what could not be honoured without refusing the event. A named Agent
 * that exists but does not own the Lead after the event is one, with the reason: the Lead already
 * had an Owner (the rule runs only for an unowned Lead), the named Agent is inactive, or the
 * listing's Agent came first (owner rule).
 */
function namedAgentNotOwner(
  namedAgent: AgentRecord | undefined,
  listingAgentId: string | undefined,
  result: Pick<ContactLeadResult, 'lead' | 'ownerBefore'>,
): IngestWarning | undefined {
  const owner = result.lead.assignedAgentId;
  if (!namedAgent || owner === namedAgent.id) return undefined;
  const named = `The named Agent ${namedAgent.id} does not own the Lead`;
  let why: string;
  if (result.ownerBefore)
    why = `the Lead already has an Owner (Agent ${result.ownerBefore}), which an ingest keeps`;
  else if (!namedAgent.isActive) why = 'the named Agent is inactive';
  else if (owner && owner === listingAgentId) why = `the listing's Agent ${owner} comes first`;
  else why = owner ? `the owner rule assigned Agent ${owner}` : 'the Lead was left Unassigned';
  return { code: 'agent_unmatched', detail: `${named}: ${why}` };
}

export interface IngestResult {
  lead: LeadRecord;
  created: boolean;
  inquiryId: string | null;
  activityId: string | null;
  warnings: IngestWarning[];
}

/**
 * POST /v1/leads:ingest: resolve the listing and the Agent the event names (what cannot be honoured
 * becomes a warning), then match or make the Lead of the contact (rule 1, race-safe), inquiry and
 * registration events recording an Inquiry, a note an Activity (kind note), each in the Lead's own
 * transaction. A Lead without an Owner gets one by the owner rule; the listing asked about is linked
 * to the Lead (source inquiry). A new Lead has source api, or import when the event occurred more
 * than BACKFILL_THRESHOLD_DAYS ago (rule 3).
 *
 * What follows from the write runs off the request path, as stream reactions of the items written
 * (functions/streams/reactions): the Owner's email about the Inquiry (rule 2) or about the
 * assignment, and the scoring request.
 */
export async function ingestLeadEvent(
  caller: Caller,
  input: LeadIngestInput,
  ids: IdSource = randomIds(),
): Promise<IngestResult> {
  const { tenant } = caller;
  const tenantId = tenant.tenantId;
  const now = new Date();
  const occurredAt = input.occurred_at ?? now.toISOString();
  const contact = contactOf(tenant, input.person, ['body', 'person', 'phone']);
  const warnings: IngestWarning[] = [];
  const [listing, namedAgent] = await Promise.all([
    resolveListing(tenantId, input, warnings),
    resolveNamedAgent(tenantId, input, warnings),
  ]);
  // Warnings in a stable order (property first), whichever lookup finished first.
  warnings.sort((a, b) => INGEST_WARNING_CODES.indexOf(a.code) - INGEST_WARNING_CODES.indexOf(b.code));
  const type = input.type;
  const inquiryId = ids.next('inquiry');
  const activityId = ids.next('activity');
  const newLeadId = ids.next('lead');
  const result =
    (ids.resumed ? await committedBefore(tenantId, type, { inquiryId, activityId, newLeadId }) : undefined) ??
    (await findOrCreateLead({
      newLeadId,
      tenant,
      contact,
      source: isBackfill(new Date(occurredAt), now) ? 'import' : 'api',
      campaign: input.campaign ?? undefined,
      sourceDetail: input.source,
      firstSeenAt: occurredAt,
      owner: { kind: 'rule', listingAgentId: listing?.agentId, namedAgent },
      record: (leadId, at): LeadRecordWith =>
        type === 'note'
          ? {
              activity: newActivityRecord({
                id: activityId,
                tenantId,
                leadId,
                kind: 'note',
                title: `Note from ${input.source}`.slice(0, 255),
                body: input.message ?? undefined,
                propertyId: listing?.id,
                createdBy: caller.apiKey.name,
                now: at,
              }),
            }
          : {
              inquiry: withoutUndefined({
                tenantId,
                id: inquiryId,
                leadId,
                propertyId: listing?.id,
                propertyKey: listing?.id ?? 'none',
                channel: 'form' as const,
                type,
                message: input.message ?? undefined,
                source: input.source,
                campaign: input.campaign ?? undefined,
                occurredAt,
                createdAt: at,
                updatedAt: at,
              }),
            },
    }));
  if (result.inquiry && listing) {
    // The listing asked about joins the Lead's listings (source inquiry; an existing link is kept, so
    // a resumed run that finds the link made links nothing twice).
    await linkLeadListing({
      tenantId,
      leadId: result.lead.id,
      propertyId: listing.id,
      role: 'interested',
      source: 'inquiry',
    });
  }
  const unhonoured = namedAgentNotOwner(namedAgent, listing?.agentId, result);
  if (unhonoured) warnings.push(unhonoured);
  if (warnings.length > 0) countMetric(BusinessMetric.LeadsIngestedWithWarnings);
  return {
    lead: result.lead,
    created: result.created,
    inquiryId: result.inquiry?.id ?? null,
    activityId: result.activity?.id ?? null,
    warnings,
  };
}

/**
 * What an earlier run of this same request committed before it died without storing its answer: the
 * Inquiry (or the note's Activity) it wrote under the ids this request derives, and its Lead as it is
 * now. Undefined when that run committed nothing, so this one does the work.
 */
async function committedBefore(
  tenantId: string,
  type: LeadIngestInput['type'],
  ids: { inquiryId: string; activityId: string; newLeadId: string },
): Promise<ContactLeadResult | undefined> {
  const recorded =
    type === 'note'
      ? { activity: await getActivity(tenantId, ids.activityId) }
      : { inquiry: await getInquiry(tenantId, ids.inquiryId) };
  const leadId = recorded.activity?.leadId ?? recorded.inquiry?.leadId;
  if (!leadId) return undefined;
  const lead = await getLead(tenantId, leadId, { consistent: true });
  if (!lead) return undefined;
  const created = lead.id === ids.newLeadId;
  // The Owner before that run is not kept; a Lead it did not create is taken to have had its Owner.
  return { lead, created, ownerBefore: created ? undefined : lead.assignedAgentId, ...recorded };
}
