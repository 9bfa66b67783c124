import type { LeadListInput, LeadManualCreateInput, LeadUpdateInput } from '../contract/leads.ts';
import { getAgent } from '../data/agents.ts';
import { withoutUndefined } from '../data/defined.ts';
import { searchLeadTokens, searchPlan } from '../data/lead-search.ts';
import { getLead, type LeadRecord, modifyLead, queryLeads, requireLead } from '../data/leads.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { allowedMoves, canMove, normalizePhone } from '../domain/leads.ts';
import { RequestValidationError } from '../kernel/errors.ts';
import type { Caller } from './caller.ts';
import { contactOf, notifyOwnerOfAssignment, type OwnerChoice, takeInContact } from './lead-intake.ts';
import { pageFrom, readCursor } from './paging.ts';

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
  const result = await takeInContact({ tenant, contact, source: 'manual', firstSeenAt: now, owner });
  if (result.assignedByRule) await notifyOwnerOfAssignment(tenant.tenantId, result.lead);
  return { lead: result.lead, created: result.created };
}

export async function readLead(tenantId: string, id: string): Promise<LeadRecord> {
  return requireLead(tenantId, id);
}

/**
 * PATCH /v1/leads/{lead_id}: fields present change, null clears (notes) or unassigns (Owner);
 * status: null leaves it. A move the pipeline does not allow → 422 naming the allowed moves. The
 * move is checked against the Lead as it is written (optimistic concurrency), never a stale read.
 */
export async function editLead(tenantId: string, id: string, input: LeadUpdateInput): Promise<LeadRecord> {
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
          `A lead cannot move from ${current.status} to ${input.status}; allowed moves from ${current.status}: ${allowed.join(', ')}`,
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
 * GET /v1/leads. Every filter is served by an index: q → the search token items of the longest
 * word's prefix; owner → gsi3; status → gsi2; tier → gsi4; none → gsi1. Other filters and the
 * archived flag apply as filter expressions. Pages run by (updated_at, id) with a signed cursor
 * bound to the filters.
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
  const after = readCursor(q.cursor, scope);
  const filters = {
    tenantId,
    limit: q.limit,
    after,
    since: q.updated_since,
    includeArchived: q.include_archived,
    statuses: q.status,
    ownerKey: q.owner,
    tierKeys: q.tier,
  };
  if (q.q === undefined) return pageFrom(await queryLeads(filters), q.limit, scope, present);

  const plan = searchPlan(searchText(tenant, q.q));
  if (!plan) {
    throw RequestValidationError.single(
      ['query', 'q'],
      'q needs a word of at least 2 letters or digits',
      'q_too_short',
    );
  }
  const tokens = await searchLeadTokens({ ...filters, plan });
  // A copy without its (long) notes: read the notes from the Lead. The copy keeps the item's
  // place in the order (its updatedAt), so the cursor stays consistent with the index.
  const leads = await Promise.all(
    tokens.map(async (t) => {
      const copy = t.lead as LeadRecord;
      if (t.complete) return copy;
      const full = await getLead(tenantId, t.leadId);
      return withoutUndefined({ ...copy, notes: full?.notes });
    }),
  );
  return pageFrom(leads, q.limit, scope, present);
}
