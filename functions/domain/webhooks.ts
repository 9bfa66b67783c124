import { randomBytes } from 'node:crypto';
import { EVENT_TYPES, type EventType } from './events.ts';
import type { Scope } from './scopes.ts';

/**
 * Event types a webhook endpoint can subscribe to: the events catalogue (one list, in ./events.ts).
 * `ping` is sent by `POST /v1/webhooks/{endpoint_id}/test` and is never subscribed to.
 */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES;

export type SubscribableEventType = EventType;

export const PING_EVENT_TYPE = 'ping';

export function isSubscribableEventType(value: string): value is SubscribableEventType {
  return (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The read scope that lets a key see events of this type on GET /v1/events: subscribing needs it
 * too, so that `webhooks:manage` is never a way to read Leads without `leads:read`.
 */
export function readScopeForEventType(type: SubscribableEventType): Scope {
  const kind = type.slice(0, type.indexOf('.'));
  if (kind === 'activity') return 'activities:read';
  if (kind === 'property') return 'properties:read';
  return 'leads:read'; // lead.* and inquiry.*
}

/**
 * Whether the key that subscribed an endpoint may still receive its events: a revoked or expired
 * key loses its feed for good (the reason is what the endpoint shows as `disabled_reason`); a key
 * that cannot be found counts as revoked.
 */
export type SubscriberStanding = 'live' | 'key_revoked' | 'key_expired';

export function subscriberStanding(
  key: { revokedAt?: string | undefined; expiresAt?: string | undefined } | undefined,
  now: Date,
): SubscriberStanding {
  if (!key || key.revokedAt) return 'key_revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) return 'key_expired';
  return 'live';
}

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format receivers expect. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The retry ladder, as the API publishes it: the wait after the 1st, 2nd… failed automatic attempt.
 * Eight retries after the first attempt, about three days in all; the 9th failure gives up.
 */
export const RETRY_LADDER_MS: readonly number[] = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
  24 * 3_600_000,
];

/** How many failed attempts in a row, across an endpoint's deliveries, disable it. */
export const MAX_CONSECUTIVE_FAILURES = 20;

/** A receiver's answer, reduced to what the ladder cares about. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'gone';

/** Any 2xx is a success; 410 Gone disables the endpoint; everything else (3xx included) fails. */
export function outcomeOf(statusCode: number | null): AttemptOutcome {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return 'succeeded';
  if (statusCode === 410) return 'gone';
  return 'failed';
}

/**
 * How long to wait before the next automatic attempt after attempt number `attempt` (from 1) ended
 * with `outcome`, or `null` when there is no next attempt (success, 410, or the ladder is spent).
 */
export function nextDelay(attempt: number, outcome: AttemptOutcome): number | null {
  if (outcome !== 'failed') return null;
  return RETRY_LADDER_MS[attempt - 1] ?? null;
}
