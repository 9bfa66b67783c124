import type { EntityItem } from 'electrodb';
import type { EventGroup, EventType } from '../domain/events.ts';
import { Event } from './entities/event.ts';
import { isConditionalFailure } from './errors.ts';

export type EventRecord = EntityItem<typeof Event>;

/**
 * Writes an event once: a replayed stream batch derives the same id again, and the first write
 * stands (its `created_at` included). Returns false when the event was already there.
 */
export async function putEvent(record: EventRecord): Promise<boolean> {
  try {
    await Event.create(record).go({ response: 'none' });
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

export async function getEvent(tenantId: string, id: string): Promise<EventRecord | undefined> {
  const { data } = await Event.get({ tenantId, id }).go();
  return data ?? undefined;
}

/** Position in the log: the last event already returned. */
export interface EventPosition {
  createdAt: string;
  id: string;
}

export interface EventPageQuery {
  tenantId: string;
  /** One group's partition (gsi1) or one type's (gsi2). */
  partition: { group: EventGroup } | { type: EventType };
  /** Events strictly after this one… */
  after?: EventPosition | undefined;
  /** …and created at or after this time (the retention floor, or `since`). */
  from: string;
  limit: number;
}

interface Ranged {
  go(options: { limit: number; count: number }): Promise<{ data: EventRecord[] }>;
}
interface Partition extends Ranged {
  gt(sk: EventPosition): Ranged;
  gte(sk: { createdAt: string }): Ranged;
}

/** Up to `limit` events of one partition, oldest first, by (createdAt, id). */
export async function queryEvents(q: EventPageQuery): Promise<EventRecord[]> {
  const { tenantId, partition } = q;
  const query = ('group' in partition
    ? Event.query.byGroup({ tenantId, group: partition.group })
    : Event.query.byType({ tenantId, type: partition.type })) as unknown as Partition;
  const ranged =
    q.after && q.after.createdAt >= q.from ? query.gt(q.after) : query.gte({ createdAt: q.from });
  const { data } = await ranged.go({ limit: q.limit, count: q.limit });
  return data;
}
