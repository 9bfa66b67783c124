import type { ActivityCreateInput, ActivityUpdateInput } from '../contract/activities.ts';
import {
  type ActivityRecord,
  type ActivityWrite,
  applyActivityChange,
  createActivity,
  getActivity,
  queryActivities,
  requireActivity,
} from '../data/activities.ts';
import { withoutUndefined } from '../data/defined.ts';
import { getLead, requireLead } from '../data/leads.ts';
import { getListing } from '../data/listings.ts';
import { EDIT_ATTEMPTS, RETRY, withOptimisticRetry } from '../data/optimistic.ts';
import { nextTimestamp } from '../data/timestamps.ts';
import {
  type ActivityPatch,
  type ActivityRuleBroken,
  checkNewActivity,
  isEmptyChange,
  planActivityUpdate,
} from '../domain/activities.ts';
import { ConflictError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { type IdSource, randomIds } from '../kernel/ids.ts';
import { pageFrom, readCursor } from './paging.ts';

/** Who writes an Activity: the Tenant, and the API key's name recorded as its author. */
export interface ActivityWriter {
  tenantId: string;
  name: string;
}

const ruleBroken = (broken: ActivityRuleBroken) =>
  RequestValidationError.single(['body', broken.field], broken.message, broken.type);

const unknownListing = () =>
  RequestValidationError.single(
    ['body', 'property_id'],
    'No listing with this id in this tenant',
    'unknown_property',
  );

/** POST /v1/leads/{lead_id}/activities: checks the rules, the Lead (404) and the listing (422), then writes once. */
export async function addActivity(
  writer: ActivityWriter,
  leadId: string,
  input: ActivityCreateInput,
  ids: IdSource = randomIds(),
): Promise<ActivityRecord> {
  const id = ids.next('activity');
  // An earlier run of this same request that died after it committed: its Activity is the answer.
  const committed = ids.resumed ? await getActivity(writer.tenantId, id) : undefined;
  if (committed) return committed;
  const broken = checkNewActivity({ kind: input.kind, dueAt: input.due_at });
  if (broken) throw ruleBroken(broken);
  // Strongly consistent: a Lead or listing the caller created a moment ago must be found.
  const [lead, property] = await Promise.all([
    getLead(writer.tenantId, leadId, { consistent: true }),
    input.property_id ? getListing(writer.tenantId, input.property_id, { consistent: true }) : undefined,
  ]);
  if (!lead) throw new NotFoundError('No lead with this id');
  if (input.property_id && !property) throw unknownListing();
  return createActivity({
    id,
    tenantId: writer.tenantId,
    leadId,
    kind: input.kind,
    title: input.title,
    body: input.body ?? undefined,
    dueAt: input.due_at ?? undefined,
    reminderAt: input.reminder_at ?? undefined,
    assigneeUserId: input.assignee_user_id ?? undefined,
    propertyId: input.property_id ?? undefined,
    createdBy: writer.name,
  });
}

export function readActivity(tenantId: string, id: string): Promise<ActivityRecord> {
  return requireActivity(tenantId, id);
}

function toPatch(input: ActivityUpdateInput): ActivityPatch {
  return {
    kind: input.kind,
    title: input.title,
    body: input.body,
    dueAt: input.due_at,
    reminderAt: input.reminder_at,
    assigneeUserId: input.assignee_user_id,
    propertyId: input.property_id,
    completed: input.completed,
  };
}

/**
 * PATCH /v1/activities/{activity_id} by the rules of domain/activities.ts: completed true completes,
 * false reopens, null clears, omitted fields stay. A request that changes nothing writes nothing
 * (updated_at stays). Nothing is written when a rule is broken.
 */
export async function editActivity(
  tenantId: string,
  id: string,
  input: ActivityUpdateInput,
): Promise<ActivityRecord> {
  const patch = toPatch(input);
  let listingChecked = false;
  return withOptimisticRetry(
    async () => {
      // Strongly consistent: the write is conditioned on this version, and a retry must see the newer one.
      const current = await requireActivity(tenantId, id, { consistent: true });
      const now = nextTimestamp(current.updatedAt);
      const plan = planActivityUpdate(current, patch, now);
      if (!plan.ok) throw ruleBroken(plan.broken);
      const { change } = plan;
      if (change.set.propertyId !== undefined && !listingChecked) {
        if (!(await getListing(tenantId, change.set.propertyId, { consistent: true })))
          throw unknownListing();
        listingChecked = true;
      }
      if (isEmptyChange(change)) return current;
      const write: ActivityWrite = { set: withoutUndefined(change.set), clear: change.clear };
      const outcome = await applyActivityChange(current, write, now);
      return outcome === 'stale' ? RETRY : outcome;
    },
    {
      attempts: EDIT_ATTEMPTS,
      exhausted: () => {
        throw new ConflictError('The activity changed while it was being edited; retry');
      },
    },
  );
}

export interface ListActivitiesInput {
  limit: number;
  cursor?: string | undefined;
  updated_since?: string | undefined;
}

/**
 * A page of Activities by (updated_at, id): the Tenant's (GET /v1/activities) or one Lead's
 * (GET /v1/leads/{lead_id}/activities; an unknown Lead → 404). The cursor is bound to the list,
 * the Lead and updated_since.
 */
export async function listActivities<O>(
  tenantId: string,
  q: ListActivitiesInput,
  present: (a: ActivityRecord) => O,
  leadId?: string,
) {
  const scope = `${tenantId}:activities:${leadId ?? '*'}:${q.updated_since ?? ''}`;
  const after = readCursor(q.cursor, scope);
  if (leadId !== undefined) await requireLead(tenantId, leadId);
  const items = await queryActivities({
    tenantId,
    limit: q.limit,
    ...(leadId !== undefined ? { leadId } : {}),
    ...(after ? { after } : {}),
    ...(q.updated_since ? { since: q.updated_since } : {}),
  });
  return pageFrom(items, q.limit, scope, present);
}
