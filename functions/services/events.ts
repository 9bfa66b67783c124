import { type EventPosition, type EventRecord, getEvent, queryEvents } from '../data/events.ts';
import {
  EVENT_GROUPS,
  EVENT_RETENTION_SECONDS,
  type EventEnvelope,
  type EventGroup,
  type EventType,
  formatEventTime,
  groupOf,
  groupsCoveredBy,
  normalizeEventTime,
} from '../domain/events.ts';
import { config } from '../kernel/config.ts';
import { ForbiddenError, NotFoundError, RequestValidationError } from '../kernel/errors.ts';
import { pageFrom, readCursor } from './paging.ts';

/** Who reads: the Tenant and the scopes of the key. */
export interface EventReader {
  tenantId: string;
  scopes: readonly string[];
}

/** The groups the key may read; none of the three read scopes → 403. */
function readableGroups(reader: EventReader): EventGroup[] {
  const groups = groupsCoveredBy(reader.scopes);
  if (!groups.length) {
    const scopes = Object.values(EVENT_GROUPS).map((g) => g.scope);
    throw new ForbiddenError(`This API key lacks the scope ${scopes.join(' or ')}`);
  }
  return groups;
}

/** The oldest `created_at` still served: 30 days of history (TTL deletes late, so reads filter). */
function retentionFloor(): string {
  return formatEventTime((Date.now() - EVENT_RETENTION_SECONDS * 1000) * 1000);
}

/** An event the reader may see: its Tenant's, of a covered group, not expired. */
async function visibleEvent(reader: EventReader, groups: EventGroup[], id: string) {
  const record = await getEvent(reader.tenantId, id);
  if (!record || !groups.includes(record.group as EventGroup) || record.createdAt < retentionFloor()) {
    return undefined;
  }
  return record;
}

/**
 * The newest `created_at` the list serves. An event's time is set by the stream consumer before its
 * write, and the write (its SDK retries after a throttle) and the index it is listed by (a GSI,
 * eventually consistent) can make it visible after a later event: a reader that had paged past that
 * later event (`cursor`, `since`) would never see it. Listing only events older than a few seconds,
 * longer than such a write and the index lag take, makes every later read an append: a reader
 * following `since` skips nothing. GET /v1/events/{id} answers at once.
 */
function settledHorizon(): string {
  return formatEventTime((Date.now() - config().EVENTS_SETTLE_SECONDS * 1000) * 1000);
}

const envelopeOf = (record: { envelope: string }) => JSON.parse(record.envelope) as EventEnvelope;

/** GET /v1/events/{event_id}: one envelope; 404 when the key's scopes do not cover it. */
export async function readEvent(reader: EventReader, id: string): Promise<EventEnvelope> {
  const record = await visibleEvent(reader, readableGroups(reader), id);
  if (!record) throw new NotFoundError('No event with this id');
  return envelopeOf(record);
}

export interface EventListInput {
  limit: number;
  cursor?: string | undefined;
  since?: string | undefined;
  type?: EventType | undefined;
}

/** Where `since` starts the list: after a known event, or at a time. */
async function startOf(
  reader: EventReader,
  groups: EventGroup[],
  since: string | undefined,
): Promise<{ after?: EventPosition; from?: string }> {
  if (since === undefined) return {};
  const time = normalizeEventTime(since);
  if (time) return { from: time };
  const event = await visibleEvent(reader, groups, since);
  if (!event) {
    throw RequestValidationError.single(
      ['query', 'since'],
      'No event with this id in the last 30 days (use a date-time to start at a time)',
      'event_unknown',
    );
  }
  return { after: { createdAt: event.createdAt, id: event.id } };
}

/**
 * GET /v1/events: the last 30 days, oldest first by (created_at, id). Each group the key covers is
 * its own partition (gsi1), and `type` one type's (gsi2): a key never reads kinds it may not see.
 * Pages from several groups are merged; the cursor is the last event returned. Events younger than
 * the settle horizon are left for a later read (a short or empty page, `next_cursor` null).
 */
export async function listEvents(reader: EventReader, q: EventListInput) {
  const groups = readableGroups(reader);
  if (q.type && !groups.includes(groupOf(q.type))) {
    throw new ForbiddenError(`This API key lacks the scope ${EVENT_GROUPS[groupOf(q.type)].scope}`);
  }
  const scope = [reader.tenantId, 'events', q.type ?? '', q.since ?? '', groups.join(',')].join(':');
  const cursor = readCursor(q.cursor, scope);
  const start = cursor
    ? { after: { createdAt: cursor.updatedAt, id: cursor.id } }
    : await startOf(reader, groups, q.since);
  const floor = retentionFloor();
  const from = start.from && start.from > floor ? start.from : floor;
  const partitions = q.type ? [{ type: q.type }] : groups.map((group) => ({ group }));
  const pages = await Promise.all(
    partitions.map((partition) =>
      queryEvents({ tenantId: reader.tenantId, partition, after: start.after, from, limit: q.limit + 1 }),
    ),
  );
  const horizon = settledHorizon();
  const merged = pages
    .flat()
    .filter((r) => r.createdAt <= horizon)
    .sort(byLogOrder)
    .slice(0, q.limit + 1)
    .map((r) => ({ updatedAt: r.createdAt, id: r.id, envelope: r.envelope }));
  return pageFrom(merged, q.limit, scope, envelopeOf);
}

function byLogOrder(a: EventRecord, b: EventRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
