import type { LeadListInput, LeadManualCreateInput, LeadUpdateInput } from '../contract/leads.ts';
import { getAgent } from '../data/agents.ts';
import { searchLeadTokens, searchPlan } from '../data/lead-search.ts';
import { getLeads, type LeadRecord, modifyLead, queryLeads, requireLead } from '../data/leads.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { allowedMoves, canMove, normalizePhone } from '../domain/leads.ts';
import type { OwnerChoice } from '../domain/owner-rule.ts';
import { RequestValidationError } from '../kernel/errors.ts';
import type { Caller } from './caller.ts';
import { contactOf } from './lead-ingest/contact.ts';
import { findOrCreateLead } from './lead-ingest/find-or-create-lead.ts';
import { pageByBounded, readCursor, readCursorBy } from './paging.ts';

/** An Agent a client names as Owner must be an active Agent of the Tenant → else 422 at `loc`. */
async function requireOwnerAgent(tenantId: string, agentId: string, loc: string[]): Promise<string> {
  const agent = await getAgent(tenantId, agentId);
  if (!agent)
    throw RequestValidationError.single(loc, 'No Agent with this id in this tenant', 'unknown_agent');
  if (!agent.isActive) throw RequestValidationError.single(loc, 'This Agent is not active', 'inactive_agent');
  return agent.id;
}

/**
 * POST /v1/leads (a walk-in add). source is manual. assigned_agent_id: an Agent → that Owner;
 * null → Unassigned; omitted → the creator's linked Agent, and as an API key has none, the owner
 * rule picks one (round-robin over active Agents), who is emailed. A repeated email or phone is
 * merged onto the existing Lead (created false → 200).
 */
export async function createLeadManually(
  caller: Caller,
  input: LeadManualCreateInput,
): Promise<{ lead: LeadRecord; created: boolean }> {
  const { tenant } = caller;
  const contact = contactOf(tenant, input, ['body', 'phone']);
  let owner: OwnerChoice;
  if (input.assigned_agent_id === undefined) owner = { kind: 'rule' };
  else if (input.assigned_agent_id === null) owner = { kind: 'agent', agentId: null };
  else {
    owner = {
      kind: 'agent',
      agentId: await requireOwnerAgent(tenant.tenantId, input.assigned_agent_id, [
        'body',
        'assigned_agent_id',
      ]),
    };
  }
  const now = new Date().toISOString();
  // An Owner the rule picks is emailed by a stream reaction (functions/streams/reactions).
  const result = await findOrCreateLead({ tenant, contact, source: 'manual', firstSeenAt: now, owner });
  return { lead: result.lead, created: result.created };
}

export async function readLead(tenantId: string, id: string): Promise<LeadRecord> {
  return requireLead(tenantId, id);
}

/**
 * PATCH /v1/leads/{lead_id}: fields present change, null clears (notes) or unassigns (Owner);
 * status: null leaves it. A move the pipeline does not allow → 422 naming the allowed moves, unless
 * `showStatus` is false (a caller that may not read the Lead: the message does not name its current
 * status). The move is checked against the Lead as it is written (optimistic concurrency), never a
 * stale read.
 */
export async function editLead(
  tenantId: string,
  id: string,
  input: LeadUpdateInput,
  options: { showStatus?: boolean } = {},
): Promise<LeadRecord> {
  const showStatus = options.showStatus ?? true;
  const ownerId =
    typeof input.assigned_agent_id === 'string'
      ? await requireOwnerAgent(tenantId, input.assigned_agent_id, ['body', 'assigned_agent_id'])
      : input.assigned_agent_id;
  const { lead } = await modifyLead(tenantId, id, (current) => {
    const next: LeadRecord = { ...current };
    if (input.status) {
      if (!canMove(current.status, input.status)) {
        const allowed = allowedMoves(current.status);
        throw RequestValidationError.single(
          ['body', 'status'],
          showStatus
            ? `A lead cannot move from ${current.status} to ${input.status}; allowed moves from ${current.status}: ${allowed.join(', ')}`
            : `This lead cannot move to ${input.status} from its current status`,
          'status_transition',
        );
      }
      next.status = input.status;
    }
    if (input.notes !== undefined) {
      if (input.notes === null || input.notes.trim() === '') delete next.notes;
      else next.notes = input.notes;
    }
    if (ownerId !== undefined) {
      if (ownerId === null) delete next.assignedAgentId;
      else next.assignedAgentId = ownerId;
    }
    const changed =
      next.status !== current.status ||
      next.notes !== current.notes ||
      next.assignedAgentId !== current.assignedAgentId;
    return changed ? next : undefined;
  });
  return lead;
}

/** DELETE /v1/leads/{lead_id}: is_active false; an archived Lead stays archived (idempotent). */
export async function archiveLead(tenantId: string, id: string): Promise<void> {
  await modifyLead(tenantId, id, (current) =>
    current.isActive ? { ...current, isActive: false } : undefined,
  );
}

/**
 * A phone-like `q` ("600 123 456", "+34 600…") is searched as the E.164 digits the Leads store;
 * other text is searched word by word.
 */
function searchText(tenant: TenantRecord, q: string): string {
  if (!/^[\d\s+().\-/]+$/.test(q) || q.replace(/\D/g, '').length < 4) return q;
  return (normalizePhone(q, tenant.defaultCountry) ?? q.replace(/\D/g, '')).replace(/^\+/, '');
}

/**
 * GET /v1/leads. Every filter is served by an index: q → the search tokens of the longest word's
 * prefix; owner → gsi3; status → gsi2; tier → gsi4; none → gsi1 (live or archived partitions).
 * Other filters apply as filter expressions. Every read is bounded (data/bounded-read.ts): a page
 * may be short, even empty, with a cursor to go on. Pages run by (updated_at, id) with a signed
 * cursor bound to the filters; a `q` answered from the search tokens runs by (created_at, id), the
 * order the tokens keep (a Lead's status or owner change does not rewrite them).
 */
export async function listLeads<O>(tenant: TenantRecord, q: LeadListInput, present: (lead: LeadRecord) => O) {
  const tenantId = tenant.tenantId;
  const scope = [
    tenantId,
    'leads',
    q.include_archived,
    q.updated_since ?? '',
    q.status?.join(',') ?? '',
    q.tier?.join(',') ?? '',
    q.owner ?? '',
    q.q ?? '',
  ].join(':');
  const filters = {
    tenantId,
    limit: q.limit,
    since: q.updated_since,
    includeArchived: q.include_archived,
    statuses: q.status,
    ownerKey: q.owner,
    tierKeys: q.tier,
  };
  const plan = q.q === undefined ? undefined : searchPlan(searchText(tenant, q.q));
  if (q.q !== undefined && !plan) {
    throw RequestValidationError.single(
      ['query', 'q'],
      'q needs a word of at least 2 letters or digits',
      'q_too_short',
    );
  }
  if (!plan?.prefix) {
    // No q, or only words too short for a token partition ("34"): the list, words as filters.
    const after = readCursor(q.cursor, scope);
    const page = await queryLeads({ ...filters, after, words: plan?.words });
    return pageByBounded(page, q.limit, scope, 'updatedAt', present);
  }

  const after = readCursorBy(q.cursor, scope, 'createdAt');
  const tokens = await searchLeadTokens({
    tenantId,
    words: plan.words,
    prefix: plan.prefix,
    limit: q.limit,
    after,
    includeArchived: q.include_archived,
  });
  // The tokens say which Leads hold the words; the Leads themselves answer the other filters.
  const leads = await getLeads(
    tenantId,
    tokens.items.map((t) => t.leadId),
  );
  const kept = leads.filter((lead) => matchesFilters(lead, filters));
  const last = tokens.items.at(-1);
  if (kept.length === tokens.items.length || !last) {
    return pageByBounded(
      { items: kept, resumeAfter: tokens.resumeAfter },
      q.limit,
      scope,
      'createdAt',
      present,
    );
  }
  // Some hits were left out: the next page starts after the last token examined.
  const examined = { at: last.createdAt, id: last.leadId };
  const page = kept.length > q.limit ? { items: kept } : { items: kept, resumeAfter: examined };
  return pageByBounded(page, q.limit, scope, 'createdAt', present);
}

/** The list filters a search hit must also pass (its tokens carry none of them). */
function matchesFilters(
  lead: LeadRecord,
  f: {
    since?: string | undefined;
    includeArchived: boolean;
    statuses?: readonly string[] | undefined;
    ownerKey?: string | undefined;
    tierKeys?: readonly string[] | undefined;
  },
): boolean {
  if (!f.includeArchived && !lead.isActive) return false;
  if (f.since !== undefined && lead.updatedAt < f.since) return false;
  if (f.statuses?.length && !f.statuses.includes(lead.status)) return false;
  if (f.ownerKey !== undefined && lead.ownerKey !== f.ownerKey) return false;
  if (f.tierKeys?.length && !f.tierKeys.includes(lead.tierKey)) return false;
  return true;
}
