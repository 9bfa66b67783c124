import { createHash, randomUUID } from 'node:crypto';
import { findApiKeyByIdConsistently } from '../data/api-keys.ts';
import {
  disableEndpointOnce,
  getDelivery,
  getEndpoint,
  insertDeliveryOnce,
  insertEndpoint,
  listLiveEndpoints,
  queryDeliveries,
  queryDeliveriesSince,
  queryEndpoints,
  requestSend,
  updateEndpoint,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
} from '../data/webhooks.ts';
import { EVENT_RETENTION_SECONDS } from '../domain/events.ts';
import { grants } from '../domain/scopes.ts';
import {
  generateWebhookSecret,
  isSubscribableEventType,
  PING_EVENT_TYPE,
  readScopeForEventType,
  type SubscriberStanding,
  subscriberStanding,
} from '../domain/webhooks.ts';
import {
  ForbiddenError,
  NotFoundError,
  RequestValidationError,
  UnauthorizedError,
  type ValidationIssue,
} from '../kernel/errors.ts';
import { uuidFrom } from '../kernel/ids.ts';
import { checkPublicUrl, privateUrlsAllowed } from '../kernel/net/public-address.ts';
import { pageBy, readCursorBy } from './paging.ts';

export interface NewEndpointInput {
  tenantId: string;
  url: string;
  events: readonly string[];
  /**
   * `api`: subscribed by the key `apiKey.id`, re-read as it is now (not as the auth cache holds it):
   * it must be live and its read scopes must cover the events; `console`: the admin CLI.
   */
  via: 'api' | 'console';
  apiKey?: { id: string };
  /** Where validation issues point: the API's `["body", …]`, the CLI's flags. */
  loc?: { url: (string | number)[]; events: (string | number)[] };
}

/** The URL and event checks shared by the API and the admin CLI; all issues at once. */
export function validateEndpointInput(input: Pick<NewEndpointInput, 'url' | 'events' | 'loc'>): string[] {
  const loc = input.loc ?? { url: ['body', 'url'], events: ['body', 'events'] };
  const issues: ValidationIssue[] = [];
  // A raw CR or LF (any control character) would be stored as sent and reach email subjects.
  if (/\p{Cc}/u.test(input.url)) {
    issues.push({ loc: loc.url, msg: 'Must not contain control characters', type: 'url_not_allowed' });
  } else {
    const urlProblem = checkPublicUrl(input.url, { allowPrivate: privateUrlsAllowed() });
    if (urlProblem) issues.push({ loc: loc.url, msg: urlProblem, type: 'url_not_allowed' });
  }
  if (input.url.length > 2048)
    issues.push({ loc: loc.url, msg: 'At most 2048 characters', type: 'too_long' });
  if (input.events.length === 0) {
    issues.push({ loc: loc.events, msg: 'Subscribe to at least one event type', type: 'too_short' });
  }
  input.events.forEach((type, i) => {
    if (type === PING_EVENT_TYPE) {
      issues.push({
        loc: [...loc.events, i],
        msg: 'ping is sent by the test operation and cannot be subscribed to',
        type: 'event_type_invalid',
      });
    } else if (!isSubscribableEventType(type)) {
      issues.push({
        loc: [...loc.events, i],
        msg: `Unknown event type "${type}"`,
        type: 'event_type_invalid',
      });
    }
  });
  if (issues.length > 0) throw new RequestValidationError(issues);
  const events = [...new Set(input.events)];
  return events;
}

/** Registers an endpoint and returns it with its secret (the only time the secret is shown). */
export async function createEndpoint(input: NewEndpointInput): Promise<WebhookEndpointRecord> {
  const events = validateEndpointInput(input);
  if (input.apiKey) {
    const key = await findApiKeyByIdConsistently(input.tenantId, input.apiKey.id);
    const standing = subscriberStanding(key, new Date());
    // A key revoked or expired a moment ago may still pass the cached authentication: not here.
    if (!key || standing !== 'live') {
      throw new UnauthorizedError(standing === 'key_expired' ? 'API key expired' : 'API key revoked');
    }
    const scopes = key.scopes;
    const uncovered = events.filter(
      (t) => isSubscribableEventType(t) && !grants(scopes, readScopeForEventType(t)),
    );
    if (uncovered.length > 0) {
      const needed = [...new Set(uncovered.map((t) => readScopeForEventType(t as never)))];
      throw new ForbiddenError(
        `Subscribing to ${uncovered.join(', ')} needs the scope ${needed.join(' and ')}, which this key lacks`,
      );
    }
  }
  const now = new Date().toISOString();
  const record: WebhookEndpointRecord = {
    tenantId: input.tenantId,
    id: randomUUID(),
    // Stored as the URL parser spells it (lower-case host, default port dropped, spaces encoded).
    url: new URL(input.url).href,
    events,
    enabled: true,
    secret: generateWebhookSecret(),
    createdVia: input.via,
    ...(input.apiKey ? { createdByKeyId: input.apiKey.id } : {}),
    consecutiveFailures: 0,
    createdAt: now,
    updatedAt: now,
  };
  await insertEndpoint(record);
  return record;
}

/**
 * The endpoint that key `apiKeyId` subscribed, or 404: an endpoint belongs to the key that subscribed
 * it, so another key of the Tenant (one with webhooks:manage too) neither reads nor acts on it, and
 * console endpoints (no key) are the console's. A rotated secret would let another key sign events
 * the receiver accepts; its delivery log holds events that key's scopes may not cover. The answer is
 * the same whether the endpoint is another key's, the console's, unsubscribed, unknown or another
 * Tenant's, so that it tells nothing about endpoints that are not the caller's.
 */
export async function requireEndpoint(
  tenantId: string,
  id: string,
  apiKeyId: string,
  access: 'manage' | 'read' = 'manage',
): Promise<WebhookEndpointRecord> {
  const endpoint = await getEndpoint(tenantId, id);
  // A console endpoint is shown to keys (its URL, events and state), never managed or its log read.
  const readable = access === 'read' && endpoint?.createdVia === 'console';
  if (!endpoint || endpoint.deletedAt || (endpoint.createdByKeyId !== apiKeyId && !readable)) {
    throw new NotFoundError('No webhook endpoint with this id subscribed by this key');
  }
  return endpoint;
}

/**
 * A page of the endpoints key `apiKeyId` subscribed and of the console's (shown with the events chosen
 * there, managed only in the console), oldest first by (created_at, id).
 */
export async function listEndpoints<O>(
  tenantId: string,
  apiKeyId: string,
  query: { limit: number; cursor?: string | undefined },
  present: (e: WebhookEndpointRecord) => O,
) {
  // The cursor is bound to the key's own list.
  const scope = `${tenantId}:webhooks:${apiKeyId}`;
  const after = readCursorBy(query.cursor, scope, 'createdAt');
  return pageBy(
    await queryEndpoints(tenantId, apiKeyId, query.limit, after),
    query.limit,
    scope,
    'createdAt',
    present,
  );
}

/** Every live endpoint of a Tenant (the admin CLI's `webhook list`). */
export async function listAllEndpoints(tenantId: string): Promise<WebhookEndpointRecord[]> {
  return listLiveEndpoints(tenantId);
}

/**
 * Unsubscribes an endpoint that `apiKeyId` subscribed; any other (console-made, another key's) is
 * a 404 for this key. Soft: the endpoint is marked deleted and disabled, never removed.
 */
export async function unsubscribeEndpoint(tenantId: string, id: string, apiKeyId: string): Promise<void> {
  await requireEndpoint(tenantId, id, apiKeyId);
  await updateEndpoint(tenantId, id, { deletedAt: new Date().toISOString(), enabled: false });
}

/**
 * Whether the endpoint's subscribing key, read as it is now, still lets it receive events. Console
 * endpoints have no key and are always `live`. `known` spares a repeated read for endpoints of one key.
 */
export async function standingOfSubscriber(
  endpoint: WebhookEndpointRecord,
  known?: Map<string, Promise<SubscriberStanding>>,
): Promise<SubscriberStanding> {
  const keyId = endpoint.createdByKeyId;
  if (!keyId) return 'live';
  const cached = known?.get(keyId);
  if (cached) return cached;
  const standing = findApiKeyByIdConsistently(endpoint.tenantId, keyId).then((key) =>
    subscriberStanding(key, new Date()),
  );
  known?.set(keyId, standing);
  return standing;
}

/**
 * Turns off, for good, an endpoint whose subscribing key is revoked or expired (once: true when
 * this call did it). Nothing re-enables it: only a new subscription by a live key.
 */
export function disableForSubscriber(
  endpoint: WebhookEndpointRecord,
  standing: Exclude<SubscriberStanding, 'live'>,
): Promise<boolean> {
  return disableEndpointOnce(endpoint.tenantId, endpoint.id, standing);
}

/**
 * PATCH enabled: true turns it on and resets the failure count (refused, 422, when the key that
 * subscribed it is revoked or expired); false turns it off by hand.
 */
export async function setEndpointEnabled(
  tenantId: string,
  id: string,
  apiKeyId: string,
  enabled: boolean,
): Promise<WebhookEndpointRecord> {
  const endpoint = await requireEndpoint(tenantId, id, apiKeyId);
  if (enabled) {
    const standing = await standingOfSubscriber(endpoint);
    if (standing !== 'live') {
      await disableForSubscriber(endpoint, standing);
      throw RequestValidationError.single(
        ['body', 'enabled'],
        `The API key that subscribed this endpoint is ${standing === 'key_revoked' ? 'revoked' : 'expired'}: ` +
          'the endpoint cannot be enabled again; subscribe the URL anew with a live key',
        'subscriber_key_not_live',
      );
    }
    return updateEndpoint(tenantId, id, { enabled: true, consecutiveFailures: 0, disabled: null });
  }
  return updateEndpoint(tenantId, id, {
    enabled: false,
    disabled: { reason: 'manual', at: new Date().toISOString() },
  });
}

/** A new secret, effective at once: the next attempt is signed with it and the old one verifies nothing. */
export async function rotateEndpointSecret(tenantId: string, id: string, apiKeyId: string): Promise<string> {
  await requireEndpoint(tenantId, id, apiKeyId);
  const secret = generateWebhookSecret();
  await updateEndpoint(tenantId, id, { secret });
  return secret;
}

/** Key revocation: the endpoints the key subscribed are disabled. Returns how many. */
export async function disableEndpointsOfKey(tenantId: string, apiKeyId: string): Promise<number> {
  const endpoints = (await listLiveEndpoints(tenantId)).filter(
    (e) => e.createdByKeyId === apiKeyId && e.enabled,
  );
  const at = new Date().toISOString();
  for (const endpoint of endpoints) {
    await updateEndpoint(tenantId, endpoint.id, { enabled: false, disabled: { reason: 'key_revoked', at } });
  }
  return endpoints.length;
}

/** Event times carry microseconds and a UTC offset, as the API documents them. */
export function eventTimestamp(date = new Date()): string {
  return date.toISOString().replace('Z', '000+00:00');
}

/** The delivery of an event to an endpoint has one id, so a replayed stream batch creates no twin. */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  return uuidFrom(`webhook-delivery:${eventId}:${endpointId}`);
}

/** The token of a delivery's first queued message (deterministic, like its id). */
export function firstScheduleToken(deliveryId: string): string {
  return createHash('sha256').update(`first:${deliveryId}`).digest('hex').slice(0, 32);
}

/** A new delivery record, pending, for `envelope` (its JSON) to `endpoint`. */
export function newDelivery(
  endpoint: WebhookEndpointRecord,
  envelope: { id: string; type: string },
  payload: string,
  id: string,
): WebhookDeliveryRecord {
  const now = new Date().toISOString();
  return {
    tenantId: endpoint.tenantId,
    id,
    endpointId: endpoint.id,
    eventId: envelope.id,
    eventType: envelope.type,
    payload,
    status: 'pending',
    attempts: [],
    autoAttempts: 0,
    nextAttemptAt: now,
    scheduleToken: firstScheduleToken(id),
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Sends a `ping` (data `{endpoint_id}`) to the endpoint as a new delivery, logged as `test`. The
 * stream consumer queues it: the request is committed with the delivery, so it cannot be lost.
 */
export async function sendTestPing(
  tenant: { tenantId: string; slug: string },
  endpointId: string,
  apiKeyId: string,
): Promise<WebhookDeliveryRecord> {
  const endpoint = await requireEndpoint(tenant.tenantId, endpointId, apiKeyId);
  refuseDisabled(endpoint);
  const envelope = {
    id: randomUUID(),
    type: PING_EVENT_TYPE,
    version: 1,
    created_at: eventTimestamp(),
    tenant: { slug: tenant.slug },
    data: { endpoint_id: endpoint.id },
  };
  const record: WebhookDeliveryRecord = {
    ...newDelivery(endpoint, envelope, JSON.stringify(envelope), randomUUID()),
    sendRequestId: randomUUID(),
    sendRequestTrigger: 'test',
  };
  delete record.nextAttemptAt;
  await insertDeliveryOnce(record);
  return record;
}

/**
 * A send to a disabled endpoint is a refused state change: 422 with the reason (the API keeps 409
 * for an Idempotency-Key still running and a held internal_ref, which a client may retry).
 */
function refuseDisabled(endpoint: WebhookEndpointRecord): void {
  if (!endpoint.enabled) {
    throw RequestValidationError.single(
      ['path', 'endpoint_id'],
      'The endpoint is disabled and nothing is sent to it: enable it first (PATCH {"enabled": true})',
      'endpoint_disabled',
    );
  }
}

/** The delivery of this endpoint (and the endpoint, which key `apiKeyId` subscribed), or 404. */
export async function requireDelivery(
  tenantId: string,
  endpointId: string,
  apiKeyId: string,
  deliveryId: string,
): Promise<{ endpoint: WebhookEndpointRecord; delivery: WebhookDeliveryRecord }> {
  const endpoint = await requireEndpoint(tenantId, endpointId, apiKeyId);
  const delivery = await getDelivery(tenantId, deliveryId);
  if (!delivery || delivery.endpointId !== endpointId) {
    throw new NotFoundError('No delivery with this id for this webhook endpoint');
  }
  return { endpoint, delivery };
}

/** Sends a delivery again (same webhook-id, fresh timestamp and signature), logged as `manual`. */
export async function redeliver(
  tenantId: string,
  endpointId: string,
  apiKeyId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRecord> {
  const { endpoint } = await requireDelivery(tenantId, endpointId, apiKeyId, deliveryId);
  refuseDisabled(endpoint);
  return requestSend(tenantId, deliveryId, 'manual', randomUUID());
}

/** How many recovered sends are requested at once (each is one UpdateItem). */
const RECOVER_CONCURRENCY = 10;

/**
 * POST /v1/webhooks/{id}/recover (Svix's recover): sends again every failed delivery of the endpoint
 * created since `since`, each once, as a redelivery does (same webhook-id, logged as manual). Pings
 * are tests and are left alone. `since` must lie within the event history (30 days) and not ahead.
 * Returns how many were queued.
 */
export async function recoverFailedDeliveries(
  tenantId: string,
  endpointId: string,
  apiKeyId: string,
  since: string,
  nowMs = Date.now(),
): Promise<number> {
  const endpoint = await requireEndpoint(tenantId, endpointId, apiKeyId);
  refuseDisabled(endpoint);
  const sinceMs = Date.parse(since);
  if (sinceMs < nowMs - EVENT_RETENTION_SECONDS * 1000 || sinceMs > nowMs) {
    throw RequestValidationError.single(
      ['body', 'since'],
      `since must lie within the last ${EVENT_RETENTION_SECONDS / 86_400} days (the event history) and not in the future`,
      'since_out_of_range',
    );
  }
  const failed = (
    await queryDeliveriesSince(tenantId, endpointId, 'failed', new Date(sinceMs).toISOString())
  ).filter((d) => d.eventType !== PING_EVENT_TYPE);
  for (let i = 0; i < failed.length; i += RECOVER_CONCURRENCY) {
    await Promise.all(
      failed
        .slice(i, i + RECOVER_CONCURRENCY)
        .map((d) => requestSend(tenantId, d.id, 'manual', randomUUID())),
    );
  }
  return failed.length;
}

/** A page of an endpoint's deliveries, newest first. */
export async function listDeliveries<O>(
  tenantId: string,
  endpointId: string,
  apiKeyId: string,
  query: { limit: number; cursor?: string | undefined },
  present: (d: WebhookDeliveryRecord) => O,
) {
  await requireEndpoint(tenantId, endpointId, apiKeyId);
  const scope = `${tenantId}:webhook-deliveries:${endpointId}`;
  const before = readCursorBy(query.cursor, scope, 'createdAt');
  return pageBy(
    await queryDeliveries(tenantId, endpointId, query.limit, before),
    query.limit,
    scope,
    'createdAt',
    present,
  );
}
