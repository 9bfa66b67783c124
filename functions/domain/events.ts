import { createHash } from 'node:crypto';
import { grants, type Scope } from './scopes.ts';

/**
 * The events (docs/events-and-webhooks.md): their catalogue, which read scope covers each, and the
 * pure rule that turns one change of a public resource (its public shape before and after) into the
 * events it emits. Storage, stream decoding and presentation live in functions/streams/events.ts.
 */

/** Every subscribable event type, in catalogue order; `ping` is a test, never logged. */
export const EVENT_TYPES = [
  'lead.created',
  'lead.updated',
  'lead.status_changed',
  'lead.assigned',
  'lead.scored',
  'lead.archived',
  'inquiry.created',
  'activity.completed',
  'property.created',
  'property.updated',
  'property.went_live',
  'property.price_changed',
  'property.archived',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The resources events are about. */
export type SubjectKind = 'lead' | 'inquiry' | 'activity' | 'property';

/**
 * Events are stored (and read back) per group: the kinds one read scope covers (leads:read sees lead.*
 * and inquiry.*, activities:read activity.*, properties:read property.*). A key that
 * covers two groups reads two partitions, never the third group's events.
 */
export const EVENT_GROUPS = {
  leads: { scope: 'leads:read', kinds: ['lead', 'inquiry'] },
  activities: { scope: 'activities:read', kinds: ['activity'] },
  properties: { scope: 'properties:read', kinds: ['property'] },
} as const satisfies Record<string, { scope: Scope; kinds: readonly SubjectKind[] }>;

export type EventGroup = keyof typeof EVENT_GROUPS;

export const ALL_EVENT_GROUPS = Object.keys(EVENT_GROUPS) as EventGroup[];

export function kindOf(type: EventType): SubjectKind {
  return type.slice(0, type.indexOf('.')) as SubjectKind;
}

export function groupOf(type: EventType): EventGroup {
  const kind = kindOf(type);
  return ALL_EVENT_GROUPS.find((g) =>
    (EVENT_GROUPS[g].kinds as readonly string[]).includes(kind),
  ) as EventGroup;
}

/** The groups whose events a key holding `scopes` may read (a `*:write` scope implies its read). */
export function groupsCoveredBy(scopes: readonly string[]): EventGroup[] {
  return ALL_EVENT_GROUPS.filter((g) => grants(scopes, EVENT_GROUPS[g].scope));
}

/** A resource in its public shape (the API's GET body): snake_case fields. */
export type PublicResource = Record<string, unknown>;

/** One event a change emits, before it gets its envelope: its type and the extras added to `data`. */
export interface DerivedEvent {
  type: EventType;
  extras: Record<string, unknown>;
}

/** Public fields that never count as a change by themselves. */
const BOOKKEEPING_FIELDS = new Set(['updated_at']);

/** Lead fields that AI scoring writes: their change is lead.scored, not a contact or pipeline change. */
const LEAD_SCORE_FIELDS = new Set([
  'score',
  'score_tier',
  'buyer_type',
  'recommended_action',
  'score_reasons',
  'scored_at',
]);

/**
 * Records kept beside a resource whose change changes that resource's public shape: the field of
 * the resource they show as. A change of one of them is `<kind>.updated` with that field in
 * `changed_fields`. (A listing's gallery, if kept as items of its own, lands here as
 * `propertyImage: { kind: 'property', field: 'images', ownerIdAttribute: 'propertyId' }`.)
 */
export const RESOURCE_PARTS: Record<string, { kind: SubjectKind; field: string; ownerIdAttribute: string }> =
  {
    areaMembership: { kind: 'property', field: 'areas', ownerIdAttribute: 'propertyId' },
  };

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a as object);
  const keysB = Object.keys(b as object);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Public fields whose value differs, in the resource's own field order. */
export function changedFields(before: PublicResource, after: PublicResource): string[] {
  const names = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  return names.filter((name) => !BOOKKEEPING_FIELDS.has(name) && !sameValue(before[name], after[name]));
}

const byCatalogueOrder = (a: DerivedEvent, b: DerivedEvent) =>
  EVENT_TYPES.indexOf(a.type) - EVENT_TYPES.indexOf(b.type);

function leadEvents(before: PublicResource | undefined, after: PublicResource): DerivedEvent[] {
  const events: DerivedEvent[] = [];
  if (!before) {
    events.push({ type: 'lead.created', extras: {} });
    if (after.assigned_agent_id != null) {
      events.push({ type: 'lead.assigned', extras: { previous_assigned_agent_id: null } });
    }
    return events;
  }
  const changed = changedFields(before, after);
  const contactOrPipeline = changed.filter((f) => !LEAD_SCORE_FIELDS.has(f));
  if (contactOrPipeline.length)
    events.push({ type: 'lead.updated', extras: { changed_fields: contactOrPipeline } });
  if (changed.includes('status')) {
    events.push({ type: 'lead.status_changed', extras: { previous_status: before.status } });
  }
  // A new Owner; being left Unassigned is a lead.updated of assigned_agent_id only.
  if (changed.includes('assigned_agent_id') && after.assigned_agent_id != null) {
    events.push({
      type: 'lead.assigned',
      extras: { previous_assigned_agent_id: before.assigned_agent_id ?? null },
    });
  }
  if (changed.includes('scored_at') && after.scored_at != null)
    events.push({ type: 'lead.scored', extras: {} });
  if (before.is_active === true && after.is_active === false)
    events.push({ type: 'lead.archived', extras: {} });
  return events;
}

const PRICE_FIELDS = ['price', 'rent_price', 'currency'];

function propertyEvents(before: PublicResource | undefined, after: PublicResource): DerivedEvent[] {
  const events: DerivedEvent[] = [];
  const cameLive = after.status === 'live' && before?.status !== 'live';
  if (!before) {
    events.push({ type: 'property.created', extras: {} });
    if (cameLive) events.push({ type: 'property.went_live', extras: {} });
    return events;
  }
  const changed = changedFields(before, after);
  if (changed.length) events.push({ type: 'property.updated', extras: { changed_fields: changed } });
  if (cameLive) events.push({ type: 'property.went_live', extras: {} });
  if (PRICE_FIELDS.some((f) => changed.includes(f))) {
    events.push({
      type: 'property.price_changed',
      extras: {
        previous_price: before.price ?? null,
        previous_currency: before.currency ?? null,
        previous_rent_price: before.rent_price ?? null,
      },
    });
  }
  if (after.status === 'archived' && before.status !== 'archived') {
    events.push({ type: 'property.archived', extras: {} });
  }
  return events;
}

/**
 * The events one change of a resource emits, in catalogue order. `before` is
 * undefined for a new resource; `after` undefined (a removal: nothing is hard-deleted through the
 * interface) emits nothing, and so does a write that changes no public field.
 */
export function deriveEvents(
  kind: SubjectKind,
  before: PublicResource | undefined,
  after: PublicResource | undefined,
): DerivedEvent[] {
  if (!after) return [];
  switch (kind) {
    case 'lead':
      return leadEvents(before, after).sort(byCatalogueOrder);
    case 'property':
      return propertyEvents(before, after).sort(byCatalogueOrder);
    case 'inquiry':
      return before ? [] : [{ type: 'inquiry.created', extras: {} }];
    case 'activity':
      return after.completed === true && before?.completed !== true
        ? [{ type: 'activity.completed', extras: {} }]
        : [];
  }
}

/** The event a change of a resource's part emits (see RESOURCE_PARTS), or none for other records. */
export function derivePartEvent(
  entity: string,
): { kind: SubjectKind; ownerIdAttribute: string; event: DerivedEvent } | undefined {
  const part = RESOURCE_PARTS[entity];
  if (!part) return undefined;
  return {
    kind: part.kind,
    ownerIdAttribute: part.ownerIdAttribute,
    event: { type: `${part.kind}.updated` as EventType, extras: { changed_fields: [part.field] } },
  };
}

/** RFC 4122 name-based (version 5) UUIDs of this service's events. */
const EVENT_ID_NAMESPACE = Buffer.from('6f1c3b8e5a2d4f7c9e0b1a2c3d4e5f60', 'hex');

/**
 * The event id: a version 5 UUID of the stream record and the event type, so a replayed stream
 * batch derives the same ids again (and writes no duplicate).
 */
export function eventId(streamRecordId: string, type: EventType): string {
  const hash = createHash('sha1').update(EVENT_ID_NAMESPACE).update(`${streamRecordId}\n${type}`).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Microseconds since the epoch as the envelope's `created_at`: `2026-11-23T21:30:00.123456+00:00`. */
export function formatEventTime(epochMicros: number): string {
  const millis = Math.floor(epochMicros / 1000);
  const micros = String(Math.floor(epochMicros) % 1_000_000).padStart(6, '0');
  return `${new Date(millis).toISOString().slice(0, 19)}.${micros}+00:00`;
}

const OFFSET_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A date-time with a UTC offset in the event log's own form (UTC, microseconds), so that it can be
 * compared with stored `created_at` values as text; undefined when it is not one.
 */
export function normalizeEventTime(value: string): string | undefined {
  const match = OFFSET_TIME.exec(value);
  if (!match) return undefined;
  const [, dateTime, fraction = '', offset] = match;
  const whole = Date.parse(`${dateTime}${offset?.toUpperCase()}`);
  if (Number.isNaN(whole)) return undefined;
  const micros = Number(fraction.padEnd(6, '0').slice(0, 6));
  return formatEventTime(whole * 1000 + micros);
}

/** How long events are kept: GET /v1/events promises 30 days of history. */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 3600;

/** The envelope every event has, on a webhook delivery and on GET /v1/events alike. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  version: 1;
  created_at: string;
  tenant: { slug: string };
  data: PublicResource;
}
