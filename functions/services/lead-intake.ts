import { randomUUID } from 'node:crypto';
import type { LeadIngestInput } from '../contract/leads.ts';
import { type ActivityRecord, insertActivity, newActivityRecord } from '../data/activities.ts';
import { type AgentRecord, findAgentByEmail, getAgent, listActiveAgents } from '../data/agents.ts';
import { withoutUndefined } from '../data/defined.ts';
import { type InquiryRecord, insertInquiry } from '../data/inquiries.ts';
import {
  findLeadClaim,
  getLead,
  type LeadClaimKind,
  type LeadRecord,
  nextTimestamp,
  pause,
  takeAssignmentTurn,
  WRITE_ATTEMPTS,
  writeLead,
} from '../data/leads.ts';
import { findPropertyClaim, getProperty, type PropertyRecord } from '../data/properties.ts';
import type { TenantRecord } from '../data/tenants.ts';
import {
  INGEST_WARNING_CODES,
  type IngestWarning,
  isBackfill,
  type LeadSource,
  normalizeEmail,
  normalizePhone,
} from '../domain/leads.ts';
import { ConflictError, RequestValidationError } from '../kernel/errors.ts';
import { logger } from '../kernel/logger.ts';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { emails } from '../kernel/ports/email.ts';
import type { Caller } from './caller.ts';
import { linkLeadProperty } from './lead-properties.ts';
import { requestScoring } from './scoring-requests.ts';

/** A person as the service keeps them: email normalised, phone in E.164. */
export interface Contact {
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  locale?: string | undefined;
  notes?: string | undefined;
}

/**
 * Normalises what a client sent: email trimmed and lowercased; phone to E.164 with the Tenant's
 * default country. A phone that cannot be a number → 422 at `phoneLoc`.
 */
export function contactOf(
  tenant: TenantRecord,
  raw: {
    name: string;
    email?: string | null | undefined;
    phone?: string | null | undefined;
    locale?: string | null | undefined;
    notes?: string | null | undefined;
  },
  phoneLoc: (string | number)[],
): Contact {
  let phone: string | undefined;
  if (raw.phone) {
    phone = normalizePhone(raw.phone, tenant.defaultCountry);
    if (!phone) {
      throw RequestValidationError.single(
        phoneLoc,
        `Not a phone number we can read; send it in international form (+34 600 123 456) or as a national number of ${tenant.defaultCountry}`,
        'phone_invalid',
      );
    }
  }
  return {
    name: raw.name,
    email: raw.email ? normalizeEmail(raw.email) : undefined,
    phone,
    locale: raw.locale ?? undefined,
    notes: raw.notes ?? undefined,
  };
}

/** Notes are appended on a merge, unless the Lead's notes already say exactly that. */
export function appendNotes(current: string | undefined, added: string | undefined): string | undefined {
  const text = added?.trim();
  if (!text) return current;
  if (!current) return text;
  if (current.includes(text)) return current;
  return `${current}\n\n${text}`;
}

/**
 * Dedupe merge (rule 1): fills what the Lead lacks and never overwrites a non-empty name, email or
 * phone; notes are appended. An email or phone held by another Lead is not moved onto this one.
 */
export function mergeContact(
  current: LeadRecord,
  contact: Contact,
  heldElsewhere: { email: boolean; phone: boolean },
  attribution: { campaign?: string | undefined; sourceDetail?: string | undefined } = {},
): { next: LeadRecord; claims: { kind: LeadClaimKind; value: string }[]; changed: boolean } {
  const next: LeadRecord = { ...current };
  const claims: { kind: LeadClaimKind; value: string }[] = [];
  if (!next.email && contact.email && !heldElsewhere.email) {
    next.email = contact.email;
    claims.push({ kind: 'lead-email', value: contact.email });
  }
  if (!next.phone && contact.phone && !heldElsewhere.phone) {
    next.phone = contact.phone;
    claims.push({ kind: 'lead-phone', value: contact.phone });
  }
  if (!next.name.trim() && contact.name) next.name = contact.name;
  if (!next.locale && contact.locale) next.locale = contact.locale;
  const notes = appendNotes(next.notes, contact.notes);
  if (notes !== undefined) next.notes = notes;
  if (!next.campaign && attribution.campaign) next.campaign = attribution.campaign;
  if (!next.sourceDetail && attribution.sourceDetail) next.sourceDetail = attribution.sourceDetail;
  const changed = (Object.keys(next) as (keyof LeadRecord)[]).some((k) => next[k] !== current[k]);
  return { next, claims, changed };
}

/** Who becomes the Owner of a Lead that has none. */
export type OwnerChoice =
  /** Named by the client (manual create): an Agent id, or null to stay Unassigned. */
  | { kind: 'agent'; agentId: string | null }
  /** The owner rule: the listing's Agent, else the named Agent, else round-robin. */
  | { kind: 'rule'; listingAgentId?: string | undefined; namedAgent?: AgentRecord | undefined };

export interface PickedOwner {
  agentId: string | undefined;
  /** True when the service chose the Owner (the rule), not the client. */
  picked: boolean;
}

/**
 * The owner rule (documented in docs/leads-core.md): the named listing's Agent when it has an
 * active one; otherwise the Agent the event names (agent_id / agent_email) when active; otherwise
 * round-robin over the Tenant's active Agents ordered by id, the turn taken with an atomic counter
 * (so concurrent assignments spread evenly). No active Agent: the Lead stays Unassigned.
 */
export async function pickOwner(tenantId: string, choice: OwnerChoice): Promise<PickedOwner> {
  if (choice.kind === 'agent') return { agentId: choice.agentId ?? undefined, picked: false };
  if (choice.listingAgentId) {
    const agent = await getAgent(tenantId, choice.listingAgentId);
    if (agent?.isActive) return { agentId: agent.id, picked: true };
  }
  if (choice.namedAgent?.isActive) return { agentId: choice.namedAgent.id, picked: true };
  const agents = await listActiveAgents(tenantId);
  if (agents.length === 0) return { agentId: undefined, picked: false };
  agents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const turn = await takeAssignmentTurn(tenantId);
  return { agentId: agents[(turn - 1) % agents.length]?.id, picked: true };
}

export interface IntakeInput {
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
}

/** An Inquiry or an Activity written with its Lead. */
export type LeadRecordWith = { inquiry: InquiryRecord } | { activity: ActivityRecord };

export interface IntakeResult {
  lead: LeadRecord;
  created: boolean;
  /** The Owner this request gave the Lead by the rule (undefined when it gave none). */
  assignedByRule?: string | undefined;
  inquiry?: InquiryRecord | undefined;
  activity?: ActivityRecord | undefined;
}

/**
 * Finds or makes the Lead of a contact (rule 1), race-safe: a new Lead is written in one
 * transaction with claims on its email and phone; when a claim is refused, another request got
 * there first, so the claim's owner is read again and the contact merged onto it. An existing Lead
 * is rewritten only if unchanged since read (else read again). 20 concurrent requests with one email
 * therefore make exactly one Lead.
 */
export async function takeInContact(input: IntakeInput): Promise<IntakeResult> {
  const tenantId = input.tenant.tenantId;
  const { contact } = input;
  const newId = randomUUID();
  let owner: Promise<PickedOwner> | undefined;
  const ownerOnce = () => {
    owner ??= pickOwner(tenantId, input.owner);
    return owner;
  };
  // The record of the attempt that lands (each attempt builds it anew with its own timestamp).
  let recorded: Partial<{ inquiry: InquiryRecord; activity: ActivityRecord }> = {};
  const recordFor = (leadId: string, now: string) => {
    recorded = input.record?.(leadId, now) ?? {};
    return recorded;
  };

  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
    const [emailOwner, phoneOwner] = await Promise.all([
      contact.email ? findLeadClaim(tenantId, 'lead-email', contact.email) : undefined,
      contact.phone ? findLeadClaim(tenantId, 'lead-phone', contact.phone) : undefined,
    ]);
    const existingId = emailOwner ?? phoneOwner;

    if (!existingId) {
      const { agentId, picked } = await ownerOnce();
      const now = nextTimestamp();
      const record: LeadRecord = withoutUndefined({
        tenantId,
        id: newId,
        name: contact.name,
        email: contact.email,
        phone: contact.phone,
        locale: contact.locale,
        notes: contact.notes?.trim() || undefined,
        status: 'new' as const,
        source: input.source,
        sourceDetail: input.sourceDetail,
        campaign: input.campaign,
        assignedAgentId: agentId,
        ownerKey: agentId ?? 'unassigned',
        isActive: true,
        tierKey: 'unscored',
        firstSeenAt: input.firstSeenAt,
        lastContactAt: input.firstSeenAt,
        createdAt: now,
        updatedAt: now,
      });
      const claims: { kind: LeadClaimKind; value: string }[] = [];
      if (contact.email) claims.push({ kind: 'lead-email', value: contact.email });
      if (contact.phone) claims.push({ kind: 'lead-phone', value: contact.phone });
      const { outcome, lead } = await writeLead({ next: record, claims, ...recordFor(newId, now) });
      if (outcome === 'ok') {
        countMetric(BusinessMetric.LeadsCreated);
        return { lead, created: true, assignedByRule: picked ? agentId : undefined, ...recorded };
      }
      // A claim was taken meanwhile: merge onto its owner on the next pass. Anything else (a
      // transaction conflict in DynamoDB) is retried after a pause.
      if (outcome !== 'claim_taken') await pause(attempt);
      continue;
    }

    const current = await getLead(tenantId, existingId, { consistent: true });
    if (!current) {
      await pause(attempt);
      continue;
    }
    const merged = mergeContact(
      current,
      contact,
      {
        email: emailOwner !== undefined && emailOwner !== current.id,
        phone: phoneOwner !== undefined && phoneOwner !== current.id,
      },
      { campaign: input.campaign, sourceDetail: input.sourceDetail },
    );
    let assignedByRule: string | undefined;
    if (!current.assignedAgentId) {
      const { agentId, picked } = await ownerOnce();
      if (agentId) {
        merged.next.assignedAgentId = agentId;
        merged.changed = true;
        if (picked) assignedByRule = agentId;
      }
    }
    if (!merged.changed) {
      const now = nextTimestamp();
      // The Lead is unchanged: its record is the only write.
      const alone = recordFor(current.id, now);
      if (alone.inquiry) await insertInquiry(alone.inquiry);
      if (alone.activity) await insertActivity(alone.activity);
      countMetric(BusinessMetric.LeadsMerged);
      return { lead: current, created: false, ...recorded };
    }
    const now = nextTimestamp(current.updatedAt);
    const { outcome, lead } = await writeLead({
      previous: current,
      next: { ...merged.next, updatedAt: now },
      claims: merged.claims,
      ...recordFor(current.id, now),
    });
    if (outcome === 'ok') {
      countMetric(BusinessMetric.LeadsMerged);
      return { lead, created: false, assignedByRule, ...recorded };
    }
    await pause(attempt);
  }
  throw new ConflictError('The lead was being written concurrently; retry');
}

/** Emails the Owner; a failure is logged, never fails the request (the data is already written). */
async function emailOwner(tenantId: string, agentId: string, subject: string, text: string): Promise<void> {
  try {
    const agent = await getAgent(tenantId, agentId);
    if (!agent) return;
    await emails().send({ tenantId, to: agent.email, subject, text });
  } catch (error) {
    logger.warn('owner email not sent', { tenantId, agentId, error: (error as Error).message });
  }
}

function contactLines(lead: LeadRecord): string[] {
  return [
    `Name: ${lead.name}`,
    `Email: ${lead.email ?? '(none)'}`,
    `Phone: ${lead.phone ?? '(none)'}`,
    ...(lead.locale ? [`Language: ${lead.locale}`] : []),
  ];
}

/** Tells the Owner a Lead got in touch: who, how to reach them, what they asked and about which listing. */
export async function notifyOwnerOfInquiry(
  tenantId: string,
  lead: LeadRecord,
  inquiry: InquiryRecord,
  listing: PropertyRecord | undefined,
): Promise<void> {
  if (!lead.assignedAgentId) return;
  const what = inquiry.type === 'registration' ? 'registration' : 'inquiry';
  const about = listing ? ` about "${listing.title}"` : '';
  const subject = `New ${what} from ${lead.name}${about}`;
  const text = [
    `${lead.name} got in touch (${what}${inquiry.source ? ` via ${inquiry.source}` : ''}).`,
    '',
    ...contactLines(lead),
    ...(listing
      ? [`Listing: ${listing.title} (${[listing.internalRef, listing.slug].filter(Boolean).join(', ')})`]
      : []),
    ...(inquiry.campaign ? [`Campaign: ${inquiry.campaign}`] : []),
    `When: ${inquiry.occurredAt}`,
    '',
    'Message:',
    inquiry.message?.trim() || '(no message)',
    '',
    `Lead id: ${lead.id}`,
  ].join('\n');
  await emailOwner(tenantId, lead.assignedAgentId, subject, text);
}

/** Tells an Agent the service made them the Owner of a Lead (round-robin or listing rule). */
export async function notifyOwnerOfAssignment(tenantId: string, lead: LeadRecord): Promise<void> {
  if (!lead.assignedAgentId) return;
  const text = [
    `You are now the owner of the lead ${lead.name}.`,
    '',
    ...contactLines(lead),
    ...(lead.notes ? ['', 'Notes:', lead.notes] : []),
    '',
    `Lead id: ${lead.id}`,
  ].join('\n');
  await emailOwner(tenantId, lead.assignedAgentId, `New lead assigned to you: ${lead.name}`, text);
}

/** Queues (re)scoring; like the email, a failure is logged and does not fail the request. */
export async function queueScoring(tenantId: string, leadId: string): Promise<void> {
  try {
    await requestScoring(tenantId, leadId);
  } catch (error) {
    logger.warn('scoring not queued', { tenantId, leadId, error: (error as Error).message });
  }
}

/** What an integration sends: the contract's ingest body. */
export type IngestInput = LeadIngestInput;

/**
 * The listing an event names: property_id, else property_ref (a slug, retired ones included, or an
 * internal_ref). What cannot be honoured becomes a warning, never a refusal.
 */
export async function resolveListing(
  tenantId: string,
  input: Pick<IngestInput, 'property_id' | 'property_ref'>,
  warnings: IngestWarning[],
): Promise<PropertyRecord | undefined> {
  const ref = input.property_ref ?? undefined;
  if (input.property_id) {
    const property = await getProperty(tenantId, input.property_id);
    if (!property) {
      warnings.push({
        code: 'property_not_found',
        detail: `No listing with id ${input.property_id} in this tenant; the event was recorded without a listing`,
      });
      return undefined;
    }
    if (ref) {
      const ids = await refMatches(tenantId, ref);
      if (ids.length > 0 && !ids.includes(property.id)) {
        warnings.push({
          code: 'property_ref_ambiguous',
          detail: `property_ref "${ref}" names another listing than property_id; property_id was used`,
        });
      }
    }
    return property;
  }
  if (!ref) return undefined;
  const ids = await refMatches(tenantId, ref);
  if (ids.length > 1) {
    warnings.push({
      code: 'property_ref_ambiguous',
      detail: `property_ref "${ref}" is the slug of one listing and the internal_ref of another; the event was recorded without a listing`,
    });
    return undefined;
  }
  const property = ids[0] ? await getProperty(tenantId, ids[0]) : undefined;
  if (!property) {
    warnings.push({
      code: 'property_ref_unmatched',
      detail: `No listing has the slug or internal_ref "${ref}"; the event was recorded without a listing`,
    });
  }
  return property;
}

/** The distinct listings a reference names: by slug (lowercased; retired slugs too) and by internal_ref. */
async function refMatches(tenantId: string, ref: string): Promise<string[]> {
  const [bySlug, byRef] = await Promise.all([
    findPropertyClaim(tenantId, 'property-slug', ref.toLowerCase()),
    findPropertyClaim(tenantId, 'property-ref', ref),
  ]);
  return [...new Set([bySlug?.ownerId, byRef?.ownerId].filter((id): id is string => id !== undefined))];
}

/** The Agent an event names (agent_id or agent_email; the schema refuses both); unknown → warning. */
export async function resolveNamedAgent(
  tenantId: string,
  input: Pick<IngestInput, 'agent_id' | 'agent_email'>,
  warnings: IngestWarning[],
): Promise<AgentRecord | undefined> {
  if (input.agent_id) {
    const agent = await getAgent(tenantId, input.agent_id);
    if (!agent) {
      warnings.push({
        code: 'agent_unmatched',
        detail: `No Agent with id ${input.agent_id} in this tenant; the owner rule applied without it`,
      });
    }
    return agent;
  }
  if (input.agent_email) {
    const agent = await findAgentByEmail(tenantId, normalizeEmail(input.agent_email));
    if (!agent) {
      warnings.push({
        code: 'agent_unmatched',
        detail: `No Agent with email ${input.agent_email} in this tenant; the owner rule applied without it`,
      });
    }
    return agent;
  }
  return undefined;
}

export interface IngestResult {
  lead: LeadRecord;
  created: boolean;
  inquiryId: string | null;
  activityId: string | null;
  warnings: IngestWarning[];
}

/**
 * POST /v1/leads:ingest. The contact is matched or made (rule 1, race-safe); inquiry and
 * registration events record an Inquiry, a note an Activity (kind note), each in the Lead's own
 * transaction. A Lead without an Owner gets one by the owner rule; the listing asked about is linked
 * to the Lead (source inquiry); the Owner is emailed about the Inquiry (rule 2) and scoring is
 * queued. A new Lead has source api, or import when the event occurred more than
 * BACKFILL_THRESHOLD_DAYS ago (rule 3).
 */
export async function ingestLeadEvent(caller: Caller, input: IngestInput): Promise<IngestResult> {
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
  const inquiryId = randomUUID();
  const type = input.type;
  const result = await takeInContact({
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
  });
  if (result.inquiry && listing) {
    // The listing asked about joins the Lead's listings (source inquiry; an existing link is kept).
    await linkLeadProperty({
      tenantId,
      leadId: result.lead.id,
      propertyId: listing.id,
      role: 'interested',
      source: 'inquiry',
    });
  }
  if (result.inquiry) {
    await notifyOwnerOfInquiry(tenantId, result.lead, result.inquiry, listing);
    await queueScoring(tenantId, result.lead.id);
  } else if (result.assignedByRule) {
    await notifyOwnerOfAssignment(tenantId, result.lead);
  }
  if (warnings.length > 0) countMetric(BusinessMetric.LeadsIngestedWithWarnings);
  return {
    lead: result.lead,
    created: result.created,
    inquiryId: result.inquiry?.id ?? null,
    activityId: result.activity?.id ?? null,
    warnings,
  };
}
