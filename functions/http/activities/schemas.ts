import * as z from 'zod';
import type { ActivityRecord } from '../../data/activities.ts';
import { ACTIVITY_KINDS } from '../../domain/activities.ts';
import { OffsetDateTime, PageQuery, Uuid } from '../shared/schemas.ts';

const Kind = z.enum(ACTIVITY_KINDS, { message: `Must be one of ${ACTIVITY_KINDS.join(', ')}` });

const Title = z
  .string({ message: 'Must be a string' })
  .trim()
  .min(1, 'Must not be empty')
  .max(255, 'At most 255 characters');

/** Fields an ActivityCreate and an ActivityUpdate share (interface §2.3); null means none / clear. */
const fields = {
  body: z.string().max(20_000, 'At most 20000 characters').nullable(),
  due_at: OffsetDateTime.nullable().describe('Required for task, visit and meeting; stored in UTC'),
  reminder_at: OffsetDateTime.nullable().describe('Stored in UTC'),
  assignee_user_id: Uuid.nullable(),
  property_id: Uuid.nullable().describe('A listing of the same tenant'),
};

/** POST /v1/leads/{lead_id}/activities. due_at is required for task, visit and meeting. */
export const ActivityCreate = z.object({ kind: Kind, title: Title }).extend(z.object(fields).partial().shape);

/**
 * PATCH /v1/activities/{activity_id}: fields present change, null clears, omitted stay. kind, title
 * and completed cannot be cleared (an Activity always has them), so their null leaves them as they
 * are, as the interface types them nullable; completed true completes the Activity, false reopens it.
 */
export const ActivityUpdate = z
  .object({
    kind: Kind.nullable().describe('null: left as it is'),
    title: Title.nullable().describe('null: left as it is (a title cannot be cleared)'),
    ...fields,
    completed: z
      .boolean()
      .nullable()
      .describe('true completes the activity, false reopens it; null: left as it is'),
  })
  .partial();

export type ActivityCreateInput = z.infer<typeof ActivityCreate>;
export type ActivityUpdateInput = z.infer<typeof ActivityUpdate>;

export const ActivityPath = z.object({ activity_id: Uuid });
export const LeadPath = z.object({ lead_id: Uuid });
export const ActivityListQuery = PageQuery;

export const ActivityOut = z.object({
  id: Uuid,
  lead_id: Uuid,
  kind: z.enum(ACTIVITY_KINDS),
  title: z.string(),
  body: z.string().nullable(),
  due_at: z.string().nullable(),
  reminder_at: z.string().nullable(),
  assignee_user_id: Uuid.nullable(),
  property_id: Uuid.nullable(),
  completed: z.boolean(),
  completed_at: z.string().nullable().describe('When it was completed; null while open'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ActivityOutput = z.infer<typeof ActivityOut>;

/** Storage record → the public Activity. */
export function toActivityOut(a: ActivityRecord): ActivityOutput {
  return {
    id: a.id,
    lead_id: a.leadId,
    kind: a.kind,
    title: a.title,
    body: a.body ?? null,
    due_at: a.dueAt ?? null,
    reminder_at: a.reminderAt ?? null,
    assignee_user_id: a.assigneeUserId ?? null,
    property_id: a.propertyId ?? null,
    completed: a.completed,
    completed_at: a.completedAt ?? null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}
