import * as z from 'zod/mini';
import type { ActivityRecord } from '../data/activities.ts';
import { ACTIVITY_KINDS, DATED_KINDS } from '../domain/activities.ts';
import {
  jsonSchemaIfThen,
  nonEmptyEdit,
  OffsetDateTime,
  PageQuery,
  presentFields,
  trimmedInputSchema,
  trimmedLengthPattern,
  Uuid,
} from './shared.ts';

const Kind = z.enum(ACTIVITY_KINDS, { message: `Must be one of ${ACTIVITY_KINDS.join(', ')}` });

const Title = z
  .string({ message: 'Must be a string' })
  .check(
    z.trim(),
    z.minLength(1, 'Must not be empty'),
    z.maxLength(255, 'At most 255 characters'),
    trimmedInputSchema(trimmedLengthPattern(255)),
  );

/** Fields an ActivityCreate and an ActivityUpdate share; null means none / clear. */
const fields = {
  body: z.nullable(z.string().check(z.maxLength(20_000, 'At most 20000 characters'))),
  due_at: z.nullable(OffsetDateTime).check(z.describe('Required for task, visit and meeting; stored in UTC')),
  reminder_at: z.nullable(OffsetDateTime).check(z.describe('Stored in UTC')),
  assignee_user_id: z.nullable(Uuid),
  property_id: z.nullable(Uuid).check(z.describe('A listing of the same tenant')),
};

/** POST /v1/leads/{lead_id}/activities. due_at is required for task, visit and meeting. */
export const ActivityCreate = z
  .extend(z.object({ kind: Kind, title: Title }), z.partial(z.object(fields)).shape)
  .check(
    // The handler's rule (domain/activities.ts), stated for clients: a dated kind needs due_at.
    z.meta(
      jsonSchemaIfThen(
        { required: ['kind'], properties: { kind: { enum: [...DATED_KINDS] } } },
        { required: ['due_at'], properties: { due_at: { type: 'string' } } },
      ),
    ),
  );

/**
 * PATCH /v1/activities/{activity_id}: fields present change, null clears, omitted stay. kind, title
 * and completed cannot be cleared (an Activity always has them), so their null leaves them as they
 * are, as the interface types them nullable; completed true completes the Activity, false reopens it.
 */
export const ActivityUpdate = nonEmptyEdit(
  z.partial(
    z.object({
      kind: z.nullable(Kind).check(z.describe('null: left as it is')),
      title: z.nullable(Title).check(z.describe('null: left as it is (a title cannot be cleared)')),
      ...fields,
      completed: z
        .nullable(z.boolean())
        .check(z.describe('true completes the activity, false reopens it; null: left as it is')),
    }),
  ),
);

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
  body: z.nullable(z.string()),
  due_at: z.nullable(z.string()),
  reminder_at: z.nullable(z.string()),
  assignee_user_id: z.nullable(Uuid),
  property_id: z.nullable(Uuid),
  completed: z.boolean(),
  completed_at: z.nullable(z.string()).check(z.describe('When it was completed; null while open')),
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

const SENT = 'Sent by the request (present only when it was), as the service read it';

/**
 * An Activity edit's answer to a key without activities:read (`activities:write` grants writes
 * alone): the Activity's id and the fields the request sent, as the service read them (the title
 * trimmed, dates in UTC), never the stored Activity.
 */
export const ActivityUpdateReceipt = z
  .object({
    id: Uuid,
    kind: z.optional(z.nullable(z.enum(ACTIVITY_KINDS))).check(z.describe(SENT)),
    title: z.optional(z.nullable(z.string())).check(z.describe(SENT)),
    body: z.optional(z.nullable(z.string())).check(z.describe(SENT)),
    due_at: z.optional(z.nullable(z.string())).check(z.describe(`${SENT}: in UTC`)),
    reminder_at: z.optional(z.nullable(z.string())).check(z.describe(`${SENT}: in UTC`)),
    assignee_user_id: z.optional(z.nullable(Uuid)).check(z.describe(SENT)),
    property_id: z.optional(z.nullable(Uuid)).check(z.describe(SENT)),
    completed: z.optional(z.nullable(z.boolean())).check(z.describe(SENT)),
  })
  .check(z.describe('The answer to a key without activities:read: the id and the fields the request sent'));

/** PATCH /v1/activities/{activity_id} answers: the whole Activity to a key with activities:read, else the receipt. */
export const ActivityUpdateAnswer = z.union([ActivityOut, ActivityUpdateReceipt]);

export function toActivityUpdateReceipt(
  id: string,
  sent: ActivityUpdateInput,
): z.infer<typeof ActivityUpdateReceipt> {
  return {
    id,
    ...presentFields(sent, [
      'kind',
      'title',
      'body',
      'due_at',
      'reminder_at',
      'assignee_user_id',
      'property_id',
      'completed',
    ]),
  };
}
