/**
 * Activity rules (ActivityKind, ActivityCreate / ActivityUpdate, completion; docs/activities.md)
 * and the Lead–listing link rules (LeadListingRole, LeadListingSource). No I/O here: the services
 * ask these functions what a write means, then store it.
 */

export const ACTIVITY_KINDS = ['task', 'call', 'visit', 'meeting', 'note'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Kinds that happen at a time: they cannot exist without due_at. A call or a note may be undated. */
export const DATED_KINDS: readonly ActivityKind[] = ['task', 'visit', 'meeting'];

export function needsDueAt(kind: ActivityKind): boolean {
  return DATED_KINDS.includes(kind);
}

export const LEAD_LISTING_ROLES = ['interested', 'owner', 'tenant'] as const;
export type LeadListingRole = (typeof LEAD_LISTING_ROLES)[number];
export const LEAD_LISTING_SOURCES = ['inquiry', 'manual', 'match'] as const;
export type LeadListingSource = (typeof LEAD_LISTING_SOURCES)[number];

/** A rule a write broke, named by the request field it is about (the service turns it into a 422). */
export interface ActivityRuleBroken {
  field: 'due_at' | 'kind';
  message: string;
  type: string;
}

function dueAtRequired(kind: ActivityKind): ActivityRuleBroken {
  return {
    field: 'due_at',
    message: `due_at is required for a ${kind} (task, visit and meeting need a date; a call or a note may be undated)`,
    type: 'due_at_required',
  };
}

/** ActivityCreate: a dated kind needs due_at. */
export function checkNewActivity(input: {
  kind: ActivityKind;
  dueAt?: string | null | undefined;
}): ActivityRuleBroken | undefined {
  return needsDueAt(input.kind) && !input.dueAt ? dueAtRequired(input.kind) : undefined;
}

/** The fields of an Activity these rules read and change (storage attribute names). */
export interface ActivityFields {
  kind: ActivityKind;
  title: string;
  body?: string | undefined;
  dueAt?: string | undefined;
  reminderAt?: string | undefined;
  assigneeUserId?: string | undefined;
  propertyId?: string | undefined;
  completed: boolean;
  completedAt?: string | undefined;
}

/**
 * ActivityUpdate in storage terms: `undefined` is "not sent" (left untouched), `null` is "clear".
 * kind, title and completed cannot be cleared (every Activity has them): their null means "not sent".
 */
export interface ActivityPatch {
  kind?: ActivityKind | null | undefined;
  title?: string | null | undefined;
  body?: string | null | undefined;
  dueAt?: string | null | undefined;
  reminderAt?: string | null | undefined;
  assigneeUserId?: string | null | undefined;
  propertyId?: string | null | undefined;
  completed?: boolean | null | undefined;
}

type OptionalField = 'body' | 'dueAt' | 'reminderAt' | 'assigneeUserId' | 'propertyId';
const OPTIONAL_FIELDS: readonly OptionalField[] = [
  'body',
  'dueAt',
  'reminderAt',
  'assigneeUserId',
  'propertyId',
];

export interface ActivityChange {
  /** Attributes to set (only those whose value really changes). */
  set: Partial<ActivityFields>;
  /** Attributes to remove. */
  clear: ('completedAt' | OptionalField)[];
  /** The update moved the Activity from open to done, which emits the event activity.completed. */
  completedNow: boolean;
  /** The update moved the Activity from done back to open. */
  reopened: boolean;
}

/**
 * What a partial update does to `current`, or the rule it breaks. Completion:
 * open + completed true → done (completedAt = now); done + completed false → open (completedAt
 * cleared); sending the state it is already in changes nothing, so completedAt keeps the first time.
 * The result must still satisfy the create rule: a dated kind keeps a due_at.
 */
export function planActivityUpdate(
  current: ActivityFields,
  patch: ActivityPatch,
  now: string,
): { ok: true; change: ActivityChange } | { ok: false; broken: ActivityRuleBroken } {
  const set: Partial<ActivityFields> = {};
  const clear: ('completedAt' | OptionalField)[] = [];

  const kind = patch.kind ?? current.kind;
  if (kind !== current.kind) set.kind = kind;
  if (typeof patch.title === 'string' && patch.title !== current.title) set.title = patch.title;

  for (const field of OPTIONAL_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value === null) {
      if (current[field] !== undefined) clear.push(field);
    } else if (value !== current[field]) {
      set[field] = value;
    }
  }

  const dueAt = patch.dueAt === undefined ? current.dueAt : (patch.dueAt ?? undefined);
  if (needsDueAt(kind) && !dueAt) return { ok: false, broken: dueAtRequired(kind) };

  let completedNow = false;
  let reopened = false;
  if (patch.completed === true && !current.completed) {
    set.completed = true;
    set.completedAt = now;
    completedNow = true;
  } else if (patch.completed === false && current.completed) {
    set.completed = false;
    if (current.completedAt !== undefined) clear.push('completedAt');
    reopened = true;
  }
  return { ok: true, change: { set, clear, completedNow, reopened } };
}

export function isEmptyChange(change: ActivityChange): boolean {
  return Object.keys(change.set).length === 0 && change.clear.length === 0;
}

/**
 * What linking a listing to a Lead again does. The first link's source (how the Lead and the
 * listing came together) is kept. A manual link states the role, so it replaces a different role;
 * an automatic one (an inquiry, a sent match) never overrides what a person set.
 */
export function relinkRole(
  existing: { role: LeadListingRole },
  request: { role: LeadListingRole; source: LeadListingSource },
): LeadListingRole | undefined {
  return request.source === 'manual' && request.role !== existing.role ? request.role : undefined;
}
