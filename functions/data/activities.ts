import { randomUUID } from 'node:crypto';
import type { EntityItem } from 'electrodb';
import type { ActivityKind } from '../domain/activities.ts';
import { NotFoundError } from '../kernel/errors.ts';
import { withoutUndefined } from './defined.ts';
import { Activity } from './entities/activity.ts';
import { isConditionalFailure } from './errors.ts';

export type ActivityRecord = EntityItem<typeof Activity>;

export interface NewActivity {
  tenantId: string;
  leadId: string;
  kind: ActivityKind;
  title: string;
  body?: string | undefined;
  dueAt?: string | undefined;
  reminderAt?: string | undefined;
  assigneeUserId?: string | undefined;
  propertyId?: string | undefined;
  /** The API key's name, or the integration's, that writes it. */
  createdBy: string;
  /** UTC ISO time of the write; now when omitted. */
  now?: string | undefined;
  /** The new Activity's id; random when omitted. */
  id?: string | undefined;
}

/** A new, open Activity as stored; createActivity stores one, ingestion stores one with its Lead. */
export function newActivityRecord(input: NewActivity): ActivityRecord {
  const now = input.now ?? new Date().toISOString();
  return withoutUndefined({
    tenantId: input.tenantId,
    id: input.id ?? randomUUID(),
    leadId: input.leadId,
    kind: input.kind,
    title: input.title,
    body: input.body,
    dueAt: input.dueAt,
    reminderAt: input.reminderAt,
    assigneeUserId: input.assigneeUserId,
    propertyId: input.propertyId,
    completed: false,
    createdBy: input.createdBy,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Stores a new, open Activity. It checks no rules (the services do: the Lead and listing belong to
 * the Tenant, a dated kind has dueAt).
 */
export async function createActivity(input: NewActivity): Promise<ActivityRecord> {
  const record = newActivityRecord(input);
  await insertActivity(record);
  return record;
}

export async function insertActivity(record: ActivityRecord): Promise<void> {
  await Activity.create(record).go();
}

/** Strongly consistent unless `consistent: false`: it sees the latest write. */
export async function getActivity(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<ActivityRecord | undefined> {
  // Consistent unless a caller opts out: read-your-writes for a by-id read (see getLead).
  const { data } = await Activity.get({ tenantId, id }).go({ consistent: options.consistent ?? true });
  return data ?? undefined;
}

/** The Activity, or 404 (another Tenant's Activity is simply not found). */
export async function requireActivity(
  tenantId: string,
  id: string,
  options: { consistent?: boolean } = {},
): Promise<ActivityRecord> {
  const activity = await getActivity(tenantId, id, options);
  if (!activity) throw new NotFoundError('No activity with this id');
  return activity;
}

export interface ActivityWrite {
  set: Partial<ActivityRecord>;
  clear: (keyof ActivityRecord)[];
}

/**
 * Applies an edit conditioned on the Activity being unchanged since it was read (`updatedAt`), so
 * two concurrent edits cannot interleave; 'stale' tells the caller to read again and retry.
 */
export async function applyActivityChange(
  current: ActivityRecord,
  change: ActivityWrite,
  now: string,
): Promise<ActivityRecord | 'stale'> {
  let update = Activity.patch({ tenantId: current.tenantId, id: current.id }).set({
    ...change.set,
    updatedAt: now,
  });
  if (change.clear.length > 0) update = update.remove(change.clear as never[]);
  try {
    const { data } = await update
      .where(({ updatedAt }, { eq }) => eq(updatedAt, current.updatedAt))
      .go({ response: 'all_new' });
    return data as ActivityRecord;
  } catch (error) {
    if (isConditionalFailure(error)) return 'stale';
    throw error;
  }
}

export interface ActivityPageQuery {
  tenantId: string;
  /** Only this Lead's Activities (gsi2); every Activity of the Tenant (gsi1) when omitted. */
  leadId?: string;
  limit: number;
  /** Exclusive lower bound: the (updatedAt, id) of the last item already returned. */
  after?: { updatedAt: string; id: string };
  /** Inclusive lower bound on updatedAt. */
  since?: string;
}

/**
 * Activities least recently updated first, one more than `limit` so the caller knows if more exist.
 * The index partitions hold Activities only, and no filter applies, so DynamoDB's Limit is exact;
 * `count` still guards the page size should anything ever be filtered out.
 */
export async function queryActivities(q: ActivityPageQuery): Promise<ActivityRecord[]> {
  const index =
    q.leadId === undefined
      ? Activity.query.byUpdated({ tenantId: q.tenantId })
      : Activity.query.byLead({ tenantId: q.tenantId, leadId: q.leadId });
  const ranged = q.after ? index.gt(q.after) : q.since ? index.gte({ updatedAt: q.since }) : index;
  const { data } = await ranged.go({ limit: q.limit + 1, count: q.limit + 1 });
  return data;
}
