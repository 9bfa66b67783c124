import * as z from 'zod/mini';
import { EVENT_TYPES, normalizeEventTime } from '../domain/events.ts';
import { PageQuery, Uuid } from './shared.ts';

export const EventPath = z.object({ event_id: Uuid });

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const EventListQuery = z.extend(z.pick(PageQuery, { limit: true, cursor: true }), {
  since: z.optional(
    z.string().check(
      z.refine(
        (v) => UUID_PATTERN.test(v) || normalizeEventTime(v) !== undefined,
        'Must be an event id, or an ISO 8601 date-time with a UTC offset (Z or +00:00)',
      ),
      z.describe(
        'A date-time with a UTC offset: events at or after it; or the id of the last event processed: events after it',
      ),
    ),
  ),
  type: z.optional(
    z.enum(EVENT_TYPES, { message: `Unknown event type; known types: ${EVENT_TYPES.join(', ')}` }),
  ),
});
export type EventListInput = z.infer<typeof EventListQuery>;

/** The event envelope (docs/events-and-webhooks.md), identical for every event and in webhook deliveries. */
export const EventOut = z.object({
  id: Uuid.check(z.describe('The event id; the same on every retry and redelivery')),
  type: z.enum(EVENT_TYPES),
  version: z.literal(1),
  created_at: z.string().check(z.describe('UTC with microseconds, e.g. 2026-11-23T21:30:00.123456+00:00')),
  tenant: z.object({ slug: z.string() }),
  data: z
    .record(z.string(), z.unknown())
    .check(z.describe('The full resource, as its GET returns it, plus the event type’s extras')),
});
