import type { EntityItem } from 'electrodb';
import { ConflictError, NotFoundError } from '../kernel/errors.ts';
import type { ActivityRecord } from './activities.ts';
import { type AiRunCharge, chargeWrites, countCharged } from './ai-spend.ts';
import { untilProcessed } from './batch.ts';
import { type BoundedPage, mergeBounded, readBudget, stoppedAtOf } from './bounded-read.ts';
import { withoutUndefined } from './defined.ts';
import { AssignmentCounter } from './entities/assignment-counter.ts';
import { Lead, type LeadList } from './entities/lead.ts';
import { UniqueClaim } from './entities/unique-claim.ts';
import { SDK_ERRORS } from './errors.ts';
import type { InquiryRecord } from './inquiries.ts';
import { listOf, searchIndexOf, tokenWrites } from './lead-search.ts';
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
 * The Lead with its index values recomputed from its own fields: the list (live or archived, in
 * every index key), ownerKey (gsi3) from the owner, tierKey (gsi4) from the score tier, and the
 * words and prefixes its token items are filed under. Every write goes through this, so they never
 * drift from what they index. The legacy `searchPrefixes` is dropped (its tokens are deleted).
 */
export function withDerivedKeys(lead: LeadRecord): LeadRecord {
  return withoutUndefined({
    ...lead,
    listKey: listOf(lead),
    ownerKey: lead.assignedAgentId ?? 'unassigned',
    tierKey: lead.scoreTier ?? 'unscored',
    searchText: searchIndexOf(lead).text,
    searchPrefixes: undefined,
  });
}

/**
 * Whether a stored Lead is filed under older keys: archived but still in the live partitions, or
 * its search tokens in the legacy layout (or none). Such a Lead is re-filed by its next write or by
 * `rekeyLeads`.
 */
export function needsRekey(lead: LeadRecord): boolean {
  return (
    lead.listKey !== listOf(lead) || lead.searchText === undefined || (lead.searchPrefixes?.length ?? 0) > 0
  );
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
  /**
   * The same Lead re-filed under the current keys (`rekeyLeads`): updatedAt stays, so its place in
   * the lists and its public record do not change.
   */
  rekey?: boolean | undefined;
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
 * Inquiry or Activity, and its search tokens when a searched field changed (lead-search.ts
 * tokenWrites). A new Lead is created only if its id is free; an existing one is replaced only if
 * its updatedAt is still the one read, so concurrent edits cannot interleave. Either all of it lands
 * or none does. At most 2 claims + Lead + Inquiry + Activity + 46 deletes + 46 puts = 97 actions, or
 * a score's Lead + receipt + spend + 92 tokens = 95 (the limit is 100).
 */
export async function writeLead(write: LeadWrite): Promise<{ outcome: LeadWriteOutcome; lead: LeadRecord }> {
  const next = withDerivedKeys(write.next);
  const previous = write.previous;
  if (previous && !write.rekey && next.updatedAt <= previous.updatedAt) {
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
          LegacyLeadSearchToken: legacyToken,
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
          const tokens = tokenWrites(previous, next);
          for (const key of tokens.legacyDeletes) {
            kinds.push('other');
            ops.push(legacyToken.delete(key).commit());
          }
          for (const key of tokens.deletes) {
            kinds.push('other');
            ops.push(token.delete(key).commit());
          }
          for (const item of tokens.puts) {
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
  /** Folded `q` words too short for a token partition: each must begin a word of `searchText`. */
  words?: readonly string[] | undefined;
}

type LeadAttributes = Parameters<Parameters<ReturnType<typeof Lead.query.byUpdated>['where']>[0]>[0];
type WhereOps = Parameters<Parameters<ReturnType<typeof Lead.query.byUpdated>['where']>[0]>[1];

/** What the four list indexes have in common: the same sort key (updatedAt, id) and attributes. */
interface Ranged {
  where(cb: (a: LeadAttributes, op: WhereOps) => string): Ranged;
  go(options: { limit: number; pages: number }): Promise<{ data: LeadRecord[]; cursor: string | null }>;
}
interface Partition extends Ranged {
  gt(sk: { updatedAt: string; id: string }): Ranged;
  gte(sk: { updatedAt: string }): Ranged;
}

/**
 * A page of Leads, least recently updated first, from the index that serves the most selective
 * filter: owner → gsi3; status → gsi2; tier → gsi4; none → gsi1; in the live list's partitions, and
 * the archived list's too with include_archived. The other filters are filter expressions, and
 * each partition is read once, up to a bound (bounded-read.ts): a selective combination answers a
 * short page with a cursor instead of reading on. A list of statuses or tiers queries one
 * partition per value and merges them in order.
 */
export async function queryLeads(q: LeadPageQuery): Promise<BoundedPage<LeadRecord>> {
  const { tenantId } = q;
  const lists: LeadList[] = q.includeArchived ? ['leads', 'archived-leads'] : ['leads'];
  let partitions: { partition: Partition; sortKey: string }[];
  const filters: ((a: LeadAttributes, op: WhereOps) => string)[] = [];
  const statusFilter = (a: LeadAttributes, op: WhereOps) =>
    `(${(q.statuses ?? []).map((s) => op.eq(a.status, s)).join(' OR ')})`;
  const tierFilter = (a: LeadAttributes, op: WhereOps) =>
    `(${(q.tierKeys ?? []).map((t) => op.eq(a.tierKey, t)).join(' OR ')})`;
  const of = (sortKey: string, query: unknown) => ({ partition: query as Partition, sortKey });
  if (q.ownerKey !== undefined) {
    const ownerKey = q.ownerKey;
    partitions = lists.map((listKey) => of('gsi3sk', Lead.query.byOwner({ tenantId, listKey, ownerKey })));
    if (q.statuses?.length) filters.push(statusFilter);
    if (q.tierKeys?.length) filters.push(tierFilter);
  } else if (q.statuses?.length) {
    const statuses = q.statuses;
    partitions = lists.flatMap((listKey) =>
      statuses.map((status) => of('gsi2sk', Lead.query.byStatus({ tenantId, listKey, status }))),
    );
    if (q.tierKeys?.length) filters.push(tierFilter);
  } else if (q.tierKeys?.length) {
    const tierKeys = q.tierKeys;
    partitions = lists.flatMap((listKey) =>
      tierKeys.map((tierKey) => of('gsi4sk', Lead.query.byTier({ tenantId, listKey, tierKey }))),
    );
  } else {
    partitions = lists.map((listKey) => of('gsi1sk', Lead.query.byUpdated({ tenantId, listKey })));
  }
  for (const word of q.words ?? []) filters.push((a, op) => op.contains(a.searchText, ` ${word}`));
  // Selective filters read up to the budget; a page with none reads one page (and one more item).
  const limit = filters.length ? readBudget(q.limit, partitions.length) : q.limit + 1;
  // Leads archived before archived ones had partitions of their own sit in the live ones until
  // re-filed (rekeyLeads): the live list leaves them out (a page is then one item shorter).
  if (!q.includeArchived) filters.push((a, op) => op.eq(a.isActive, true));
  const reads = await Promise.all(
    partitions.map(async ({ partition, sortKey }) => {
      const ranged = q.after
        ? partition.gt(q.after)
        : q.since
          ? partition.gte({ updatedAt: q.since })
          : partition;
      const { data, cursor } = await ranged
        .where((a, op) => filters.map((f) => f(a, op)).join(' AND '))
        .go({ limit, pages: 1, ...SDK_ERRORS });
      return { items: data, stoppedAt: stoppedAtOf(cursor, sortKey) };
    }),
  );
  return mergeBounded(reads, q.limit, (lead) => ({ at: lead.updatedAt, id: lead.id }));
}

/** Leads by id (eventually consistent; ids not found are left out), in the order asked. */
export async function getLeads(tenantId: string, ids: readonly string[]): Promise<LeadRecord[]> {
  const found = new Map<string, LeadRecord>();
  await untilProcessed('getLeads', ids, async (batch) => {
    const { data, unprocessed } = await Lead.get(batch.map((id) => ({ tenantId, id }))).go(SDK_ERRORS);
    for (const lead of data) found.set(lead.id, lead);
    return unprocessed.map((key) => key.id);
  });
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * Re-files up to `max` of a Tenant's Leads stored under older keys (`needsRekey`): archived Leads
 * still in the live partitions, search tokens in the legacy layout. Reads the live list (where every
 * such Lead is) from `after` on and rewrites each with its updatedAt unchanged; a Lead written
 * meanwhile was re-filed by that write. Returns where to resume (undefined: done).
 */
export async function rekeyLeads(
  tenantId: string,
  options: { after?: string | undefined; max?: number } = {},
): Promise<{ examined: number; rekeyed: number; resumeAfter: string | undefined }> {
  const { data, cursor } = await Lead.query
    .byUpdated({ tenantId, listKey: 'leads' })
    .go({ limit: options.max ?? 100, pages: 1, cursor: options.after ?? null, ...SDK_ERRORS });
  let rekeyed = 0;
  for (const lead of data.filter(needsRekey)) {
    const { outcome } = await writeLead({ previous: lead, next: lead, rekey: true });
    if (outcome === 'ok') rekeyed += 1;
  }
  return { examined: data.length, rekeyed, resumeAfter: cursor ?? undefined };
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
