import * as z from 'zod/mini';
import { attemptCountOf, type WebhookDeliveryRecord, type WebhookEndpointRecord } from '../data/webhooks.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '../domain/webhooks.ts';
import { OffsetDateTime, PageQuery, Uuid } from './shared.ts';

export const EndpointPath = z.object({ endpoint_id: Uuid });
export const DeliveryPath = z.object({ endpoint_id: Uuid, delivery_id: Uuid });

/** `limit` and `cursor` of the webhook lists (no updated_since: endpoints and deliveries are logs). */
export const WebhookPageQuery = z.pick(PageQuery, { limit: true, cursor: true });

/** POST /v1/webhooks/subscriptions. URL and event types are checked by the service (422 items). */
export const SubscriptionIn = z.object({
  url: z
    .string({ message: 'Must be a string' })
    .check(
      z.trim(),
      z.minLength(1, 'Must not be empty'),
      z.describe(
        'https, on a public host (no IP literal or local name outside the public ranges, no userinfo)',
      ),
    ),
  events: z
    .array(z.string({ message: 'Must be a string' }), { message: 'Must be an array of event types' })
    .check(
      z.maxLength(SUBSCRIBABLE_EVENT_TYPES.length * 2, 'Too many event types'),
      z.describe(`At least one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')} (not ping)`),
    ),
});

export const EndpointPatchIn = z.object({
  enabled: z
    .boolean({ message: 'Must be true or false' })
    .check(z.describe('true also resets the failure count')),
});

/** An id the service makes (randomUUID): the document says it is a UUID. */
const ServiceUuid = z.string().check(z.meta({ format: 'uuid' }));

export const EndpointOut = z.object({
  id: ServiceUuid,
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  created_via: z.enum(['api', 'console']),
  created_at: z.string(),
  updated_at: z.string(),
  disabled_reason: z
    .nullable(z.enum(['failures', 'gone', 'key_revoked', 'key_expired', 'manual']))
    .check(
      z.describe(
        'Why the endpoint is disabled: 20 failures in a row, a 410, the key that subscribed it revoked or expired ' +
          '(such an endpoint never delivers again and cannot be enabled: subscribe anew with a live key), or by hand',
      ),
    ),
  consecutive_failures: z.number(),
});

export const EndpointWithSecretOut = z.extend(EndpointOut, {
  secret: z.string().check(z.describe('whsec_ + base64 key material; shown only here and on rotation')),
});

export function toEndpointOut(e: WebhookEndpointRecord): z.infer<typeof EndpointOut> {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    enabled: e.enabled,
    created_via: e.createdVia,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    disabled_reason: e.enabled ? null : (e.disabledReason ?? null),
    consecutive_failures: e.consecutiveFailures,
  };
}

export const AttemptOut = z.object({
  number: z.number().check(z.describe('From 1, every attempt of this delivery')),
  trigger: z.enum(['auto', 'manual', 'test']),
  at: z.string().check(z.meta({ format: 'date-time' })),
  status_code: z.nullable(z.number()).check(z.describe('null when no answer came (timeout, refused)')),
  duration_ms: z.number(),
  error: z.nullable(z.string()),
  response_body: z.nullable(z.string()).check(z.describe("The first 4,096 bytes of the receiver's answer")),
});

export const DeliveryOut = z.object({
  id: ServiceUuid,
  event_id: ServiceUuid.check(z.describe('The webhook-id header of every attempt')),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z
    .array(AttemptOut)
    .check(z.describe('The last 20 attempts, oldest first; `attempt_count` counts every attempt made')),
  attempt_count: z.number().check(z.describe('Every attempt made: automatic, manual and test ones')),
  next_attempt_at: z.nullable(z.string()),
  created_at: z.string(),
});

export function toDeliveryOut(d: WebhookDeliveryRecord): z.infer<typeof DeliveryOut> {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      trigger: a.trigger,
      at: a.at,
      status_code: a.statusCode ?? null,
      duration_ms: a.durationMs,
      error: a.error ?? null,
      response_body: a.responseBody ?? null,
    })),
    attempt_count: attemptCountOf(d),
    next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt ?? null) : null,
    created_at: d.createdAt,
  };
}

/** POST /v1/webhooks/{endpoint_id}/recover. */
export const RecoverIn = z.object({
  since: OffsetDateTime.check(
    z.describe(
      'Recover the failed deliveries created at or after this time: within the last 30 days (the event history), with a UTC offset',
    ),
  ),
});

export const RecoverOut = z.object({
  count: z.number().check(z.describe('How many failed deliveries were queued to be sent again')),
});

export const SecretOut = z.object({ secret: z.string() });
