import type { EntityItem } from 'electrodb';
import { ConflictError, NotFoundError } from '../kernel/errors.ts';
import type { ActivityRecord } from './activities.ts';
import { type AiRunCharge, chargeWrites, countCharged } from './ai-spend.ts';
import { withoutUndefined } from './defined.ts';
import { AssignmentCounter } from './entities/assignment-counter.ts';
import { Lead } from './entities/lead.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { SDK_ERRORS } from './errors.ts';
import type { InquiryRecord } from './inquiries.ts';
import { searchIndexOf, tokensOf } from './lead-search.ts';
import { CONTENDED_ATTEMPTS, RETRY, withOptimisticRetry } from './optimistic.ts';
import { leadWrites } from './service.ts';
import { nextTimestamp } from './timestamps.ts';
import { failedCondition, writeTransaction } from './transactions.ts';

export type LeadRecord = EntityItem<typeof Lead>;

/** The one timestamp rule (data/timestamps.ts), where Lead writers have always found it. */
export { nextTimestamp } from './timestamps.ts';

/** `consistent`: a strongly consistent read, for read-modify-write (it sees the latest write). */
export async function getLead(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<LeadRecord | undefined> {
  // Strongly consistent unless a caller opts out: a by-id read answers the integrator who has just
  // written the record (create, then link or edit at once), and a read that decides a write must see
  // the last one. One item: 1 read unit instead of 0.5.
  const { data } = await Lead.get({ tenantId, id }).go({
    consistent: options.consistent ?? true,
    ...SDK_ERRORS,
  });
  return data ?? undefined;
}

/** The Lead, or 404 (another Tenant's Lead is simply not found). */
export async function requireLead(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<LeadRecord> {
  const lead = await getLead(tenantId, id, options);
  if (!lead) throw new NotFoundError('No lead with this id');
  return lead;
}

export type LeadClaimKind = 'lead-email' | 'lead-phone';

/** The id of the Lead holding a normalised email or E.164 phone in this Tenant (archived Leads too). */
export async function findLeadClaim(
  tenantId: string,
  kind: LeadClaimKind,
  value: string,
): Promise<string | undefined> {
  const { data } = await UniqueClaim.get({ scope: `t#${tenantId}`, kind, value }).go({
    consistent: true,
    ...SDK_ERRORS,
  });
  return data?.ownerId;
}

/**
 * The Lead with its index values recomputed from its own fields: ownerKey (gsi3) from the owner,
 * tierKey (gsi4) from the score tier, and the search prefixes its token items are filed under.
 * Every write goes through this, so they never drift from what they index.
 */
export function withDerivedKeys(lead: LeadRecord): LeadRecord {
  return withoutUndefined({
    ...lead,
    ownerKey: lead.assignedAgentId ?? 'unassigned',
    tierKey: lead.scoreTier ?? 'unscored',
    searchPrefixes: searchIndexOf(lead).prefixes,
  });
}

export interface LeadWrite {
  /** The Lead as read (undefined: a new Lead). The write only lands if it is still unchanged. */
  previous?: LeadRecord | undefined;
  /** The whole Lead after the write; index values are derived here. */
  next: LeadRecord;
  /** Emails and phones the Lead newly holds: claimed in the same transaction. */
  claims?: { kind: LeadClaimKind; value: string }[];
  /** An Inquiry recorded together with the Lead. */
  inquiry?: InquiryRecord | undefined;
  /** An Activity recorded together with the Lead (an ingested note). */
  activity?: ActivityRecord | undefined;
  /**
   * The AI run whose result this write is (a score): its receipt is created only if absent, with
   * its spend, so that one run is written and charged once (outcome `duplicate` otherwise).
   */
  charge?: { run: AiRunCharge; withSpend: boolean } | undefined;
}

export type LeadWriteOutcome = 'ok' | 'stale' | 'claim_taken' | 'duplicate';

/** The UniqueClaim a Lead holds on one of its emails or phones, as writeLead creates it. */
export function leadClaimOf(
  lead: Pick<LeadRecord, 'tenantId' | 'id' | 'updatedAt'>,
  claim: { kind: LeadClaimKind; value: string },
): EntityItem<typeof UniqueClaim> {
  return {
    scope: `t#${lead.tenantId}`,
    kind: claim.kind,
    value: claim.value,
    ownerId: lead.id,
    createdAt: lead.updatedAt,
  };
}

/**
 * Writes a Lead in one transaction with everything that must agree with it: the claims on a new
 * email or phone (attribute_not_exists, so two concurrent writers cannot both hold one value), an
 * Inquiry or Activity, and its search tokens (the previous version's deleted, the new one's put). A new Lead is
 * created only if its id is free; an existing one is replaced only if its updatedAt is still the one
 * read, so concurrent edits cannot interleave. Either all of it lands or none does.
 * At most 2 claims + Lead + Inquiry + Activity + 46 deletes + 46 puts = 97 actions, or a score's
 * Lead + receipt + spend + 92 tokens = 95 (the limit is 100).
 */
export async function writeLead(write: LeadWrite): Promise<{ outcome: LeadWriteOutcome; lead: LeadRecord }> {
  const next = withDerivedKeys(write.next);
  const previous = write.previous;
  if (previous && next.updatedAt <= previous.updatedAt) {
    throw new Error('writeLead: updatedAt must advance (use nextTimestamp)');
  }
  const kinds: ('claim' | 'lead' | 'receipt' | 'other')[] = [];
  const result = await writeTransaction(() =>
    leadWrites()
      .transaction.write(
        ({
          UniqueClaim: claim,
          Lead: lead,
          LeadSearchToken: token,
          Inquiry: inquiry,
          Activity: activity,
          AiCharge,
          AiSpend,
        }) => {
          // Built afresh by each attempt of the transaction.
          kinds.length = 0;
          const ops = [];
          if (write.charge) {
            const charged = chargeWrites({ AiCharge, AiSpend }, write.charge.run, write.charge);
            kinds.push('receipt', ...charged.slice(1).map(() => 'other' as const));
            ops.push(...charged);
          }
          for (const c of write.claims ?? []) {
            kinds.push('claim');
            ops.push(claim.create(leadClaimOf(next, c)).commit());
          }
          kinds.push('lead');
          ops.push(
            previous
              ? lead
                  .put(next)
                  .where(({ updatedAt }, { eq }) => eq(updatedAt, previous.updatedAt))
                  .commit()
              : lead.create(next).commit(),
          );
          if (write.inquiry) {
            kinds.push('other');
            ops.push(inquiry.create(write.inquiry).commit());
          }
          if (write.activity) {
            kinds.push('other');
            ops.push(activity.create(write.activity).commit());
          }
          for (const prefix of previous?.searchPrefixes ?? []) {
            kinds.push('other');
            ops.push(
              token
                .delete({
                  tenantId: next.tenantId,
                  prefix,
                  updatedAt: previous?.updatedAt ?? '',
                  leadId: next.id,
                })
                .commit(),
            );
          }
          for (const item of tokensOf(next)) {
            kinds.push('other');
            ops.push(token.put(item).commit());
          }
          return ops;
        },
      )
      .go(),
  );
  if (!result.canceled) {
    if (write.charge?.withSpend) countCharged(write.charge.run);
    return { outcome: 'ok', lead: next };
  }
  // Only a failed condition is left once writeTransaction has retried conflicts. The run's receipt
  // first: an earlier delivery wrote this result (whatever else changed since).
  const failed = kinds[failedCondition(result)];
  if (failed === 'receipt') return { outcome: 'duplicate', lead: next };
  return { outcome: failed === 'claim' ? 'claim_taken' : 'stale', lead: next };
}

/**
 * Read-modify-write of one Lead with optimistic retries: `change` gets the current Lead and the
 * timestamp of this write and returns the whole next Lead, or undefined when nothing changes.
 * Use it for every edit of an existing Lead (scoring included) so that index values and search
 * tokens follow. 404 when the Lead does not exist.
 */
export async function modifyLead(
  tenantId: string,
  id: string,
  change: (current: LeadRecord, now: string) => LeadRecord | undefined | Promise<LeadRecord | undefined>,
): Promise<{ lead: LeadRecord; changed: boolean; previous: LeadRecord }> {
  return withOptimisticRetry(
    async () => {
      const current = await requireLead(tenantId, id, { consistent: true });
      const now = nextTimestamp(current.updatedAt);
      const next = await change(current, now);
      if (!next) return { lead: current, changed: false, previous: current };
      const { outcome, lead } = await writeLead({ previous: current, next: { ...next, updatedAt: now } });
      return outcome === 'ok' ? { lead, changed: true, previous: current } : RETRY;
    },
    {
      attempts: CONTENDED_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('The lead changed while it was being written; retry');
      },
    },
  );
}

export interface LeadPageQuery {
  tenantId: string;
  limit: number;
  /** Exclusive lower bound: the (updatedAt, id) of the last item already returned. */
  after?: { updatedAt: string; id: string } | undefined;
  /** Inclusive lower bound on updatedAt. */
  since?: string | undefined;
  includeArchived: boolean;
  statuses?: readonly LeadRecord['status'][] | undefined;
  /** An agent id or `unassigned`. */
  ownerKey?: string | undefined;
  /** Score tiers or `unscored`. */
  tierKeys?: readonly string[] | undefined;
}

type LeadAttributes = Parameters<Parameters<ReturnType<typeof Lead.query.byUpdated>['where']>[0]>[0];
type WhereOps = Parameters<Parameters<ReturnType<typeof Lead.query.byUpdated>['where']>[0]>[1];

/** What the four list indexes have in common: the same sort key (updatedAt, id) and attributes. */
interface Ranged {
  where(cb: (a: LeadAttributes, op: WhereOps) => string): Ranged;
  go(options: { limit: number; count: number }): Promise<{ data: LeadRecord[] }>;
}
interface Partition extends Ranged {
  gt(sk: { updatedAt: string; id: string }): Ranged;
  gte(sk: { updatedAt: string }): Ranged;
}

/**
 * A page of Leads, least recently updated first, from the index that serves the most selective
 * filter: owner → gsi3; status → gsi2; tier → gsi4; none → gsi1. The other filters (and the
 * archived flag) are filter expressions, read with some slack and with `count` reading on so they
 * never cut a page short.
 * A list of statuses or tiers queries one partition per value and merges them in order.
 */
export async function queryLeads(q: LeadPageQuery): Promise<LeadRecord[]> {
  const { tenantId } = q;
  let partitions: Partition[];
  const filters: ((a: LeadAttributes, op: WhereOps) => string)[] = [];
  if (!q.includeArchived) filters.push((a, op) => op.eq(a.isActive, true));
  const statusFilter = (a: LeadAttributes, op: WhereOps) =>
    `(${(q.statuses ?? []).map((s) => op.eq(a.status, s)).join(' OR ')})`;
  const tierFilter = (a: LeadAttributes, op: WhereOps) =>
    `(${(q.tierKeys ?? []).map((t) => op.eq(a.tierKey, t)).join(' OR ')})`;
  if (q.ownerKey !== undefined) {
    partitions = [Lead.query.byOwner({ tenantId, ownerKey: q.ownerKey }) as unknown as Partition];
    if (q.statuses?.length) filters.push(statusFilter);
    if (q.tierKeys?.length) filters.push(tierFilter);
  } else if (q.statuses?.length) {
    partitions = q.statuses.map(
      (status) => Lead.query.byStatus({ tenantId, status }) as unknown as Partition,
    );
    if (q.tierKeys?.length) filters.push(tierFilter);
  } else if (q.tierKeys?.length) {
    partitions = q.tierKeys.map(
      (tierKey) => Lead.query.byTier({ tenantId, tierKey }) as unknown as Partition,
    );
  } else {
    partitions = [Lead.query.byUpdated({ tenantId }) as unknown as Partition];
  }
  const pages = await Promise.all(
    partitions.map((partition) => {
      const ranged = q.after
        ? partition.gt(q.after)
        : q.since
          ? partition.gte({ updatedAt: q.since })
          : partition;
      const filtered = filters.length
        ? ranged.where((a, op) => filters.map((f) => f(a, op)).join(' AND '))
        : ranged;
      // With a filter, DynamoDB's Limit counts items before the filter drops any: read an eighth more
      // than the page needs, so that a few archived (or otherwise filtered) Leads do not cost a second
      // sequential Query (measured by `npm run bench`: 3 → 2 round trips, 17 → ~10 read units).
      const wanted = q.limit + 1;
      return filtered.go({
        limit: filters.length ? wanted + Math.ceil(wanted / 8) : wanted,
        count: wanted,
        ...SDK_ERRORS,
      });
    }),
  );
  const items = pages.flatMap((p) => p.data);
  if (pages.length > 1) items.sort(byUpdatedThenId);
  return items.slice(0, q.limit + 1);
}

export function byUpdatedThenId(
  a: { updatedAt: string; id: string },
  b: { updatedAt: string; id: string },
): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Takes the Tenant's next round-robin turn (1, 2, 3…) with one atomic ADD: concurrent callers each
 * get a different turn, so assignments spread evenly.
 */
export async function takeAssignmentTurn(tenantId: string): Promise<number> {
  const { data } = await AssignmentCounter.update({ tenantId })
    .add({ turns: 1 })
    .go({ response: 'updated_new' });
  return data.turns ?? 1;
}
