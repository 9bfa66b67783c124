import { randomUUID } from 'node:crypto';
import {
  type AttemptRecord,
  countEndpointFailure,
  type DisabledReason,
  disableEndpointOnce,
  failWithoutAttempt,
  getDelivery,
  getEndpoint,
  insertDeliveryOnce,
  listLiveEndpoints,
  recordAttempt,
  resetEndpointFailures,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
} from '../data/webhooks.ts';
import {
  MAX_CONSECUTIVE_FAILURES,
  nextDelay,
  outcomeOf,
  type SubscriberStanding,
} from '../domain/webhooks.ts';
import { config } from '../kernel/config.ts';
import { logger } from '../kernel/logger.ts';
import { BusinessMetric, countMetric } from '../kernel/metrics.ts';
import { sendWebhook, type WebhookRequest, type WebhookResponse } from '../kernel/net/webhook-sender.ts';
import {
  type DeliveryMessage,
  type WebhookLadderPort,
  webhookLadder,
} from '../kernel/ports/webhook-ladder.ts';
import {
  deliveryIdFor,
  disableForSubscriber,
  newDelivery,
  standingOfSubscriber,
} from './webhook-endpoints.ts';

/** What the delivery logic reaches outside the table; tests pass their own. */
export interface DeliveryDeps {
  ladder: WebhookLadderPort;
  send: (req: WebhookRequest) => Promise<WebhookResponse>;
  /** RETRY_DELAY_SCALE: 1 in AWS; the local stack may shrink the ladder. */
  delayScale: number;
}

function defaultDeps(): DeliveryDeps {
  return { ladder: webhookLadder(), send: (req) => sendWebhook(req), delayScale: config().RETRY_DELAY_SCALE };
}

/** The parts of an event envelope fan-out needs. */
export interface EnvelopeHead {
  id: string;
  type: string;
}

/**
 * Fans an event out: one delivery per enabled endpoint of the Tenant subscribed to its type, each
 * queued at once. An endpoint whose subscribing key is now revoked or expired gets nothing and is
 * disabled with that reason (revocation disables them too, but a revoked key could re-enable or
 * re-subscribe within its cache window, and expiry writes nothing). Delivery ids come from (event id, endpoint id), so a replayed stream batch finds
 * them made and only queues them again (the queued message's token makes a repeat harmless).
 */
export async function fanOutEvent(
  tenantId: string,
  envelopeJson: string,
  deps: Pick<DeliveryDeps, 'ladder'> = defaultDeps(),
): Promise<number> {
  const envelope = JSON.parse(envelopeJson) as EnvelopeHead;
  const subscribed = (await listLiveEndpoints(tenantId)).filter(
    (e) => e.enabled && e.events.includes(envelope.type),
  );
  const standings = new Map<string, Promise<SubscriberStanding>>();
  const endpoints: WebhookEndpointRecord[] = [];
  for (const endpoint of subscribed) {
    const standing = await standingOfSubscriber(endpoint, standings);
    if (standing === 'live') endpoints.push(endpoint);
    else await disableOfSubscriber(endpoint, standing);
  }
  // Endpoint by endpoint side by side: each is its own item and message, so their order
  // does not matter, and a Tenant with many endpoints costs one round of writes, not one per endpoint.
  // If one fails the record fails and is retried; the others find their delivery made and re-queue it.
  await Promise.all(
    endpoints.map(async (endpoint) => {
      const id = deliveryIdFor(envelope.id, endpoint.id);
      const record = newDelivery(endpoint, envelope, envelopeJson, id);
      const created = await insertDeliveryOnce(record);
      const delivery = created ? record : await getDelivery(tenantId, record.id);
      // Already attempted: the replayed batch came after the queue did its work.
      if (delivery?.status !== 'pending' || delivery.autoAttempts > 0) return;
      await deps.ladder.enqueue(autoMessage(delivery), 0);
    }),
  );
  return endpoints.length;
}

function autoMessage(delivery: WebhookDeliveryRecord, token = delivery.scheduleToken): DeliveryMessage {
  return {
    tenantId: delivery.tenantId,
    endpointId: delivery.endpointId,
    deliveryId: delivery.id,
    trigger: 'auto',
    token,
  };
}

/** The outbox of API-requested sends: a new `sendRequestId` on a delivery becomes one queued message. */
export async function queueRequestedSend(
  oldImage: Record<string, unknown> | undefined,
  newImage: Record<string, unknown> | undefined,
  deps: Pick<DeliveryDeps, 'ladder'> = defaultDeps(),
): Promise<void> {
  const requestId = newImage?.sendRequestId;
  if (typeof requestId !== 'string' || requestId === oldImage?.sendRequestId) return;
  await deps.ladder.enqueue(
    {
      tenantId: newImage?.tenantId as string,
      endpointId: newImage?.endpointId as string,
      deliveryId: newImage?.id as string,
      trigger: newImage?.sendRequestTrigger === 'test' ? 'test' : 'manual',
      token: requestId,
    },
    0,
  );
}

/** What happened to one queued message (for logs and tests). */
export type MessageResult =
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  | 'stale'
  | 'not_due'
  | 'endpoint_disabled'
  | 'duplicate';

/**
 * Handles one queued message: makes the attempt it stands for (if it is still the one the delivery
 * waits for), logs it, and climbs the ladder on failure. The attempt is recorded BEFORE the next rung
 * is queued: a rung that cannot be queued, or a crash in between, leaves a recorded
 * attempt and a pending delivery whose token nothing carries, which the sweeper
 * (`requeueOverdueDeliveries`) queues again once it is overdue. The other order re-ran the whole
 * message when queuing failed: the receiver was POSTed again, and the attempt never recorded.
 */
export async function processDeliveryMessage(
  message: DeliveryMessage,
  deps: DeliveryDeps = defaultDeps(),
): Promise<MessageResult> {
  const delivery = await getDelivery(message.tenantId, message.deliveryId);
  if (!delivery) return 'stale';
  const guard = message.trigger === 'auto' ? { scheduleToken: message.token } : { requestId: message.token };
  if (message.trigger === 'auto') {
    if (delivery.status !== 'pending' || delivery.scheduleToken !== message.token) return 'stale';
    // Woken early (SQS caps a delay at 15 minutes; a clock may drift): wait out the rest.
    const dueIn = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - Date.now() : 0;
    if (dueIn > 1000) {
      await deps.ladder.enqueue(message, dueIn);
      return 'not_due';
    }
  } else if (delivery.handledRequestId === message.token) {
    return 'duplicate';
  }

  const endpoint = await getEndpoint(message.tenantId, message.endpointId);
  if (!endpoint || endpoint.deletedAt || !endpoint.enabled) {
    // Nothing is sent to a disabled endpoint; what falls due meanwhile fails and can be redelivered.
    await failWithoutAttempt(delivery, guard);
    return 'endpoint_disabled';
  }
  // A retry, test or redelivery queued before the subscribing key was revoked or expired.
  const standing = await standingOfSubscriber(endpoint);
  if (standing !== 'live') {
    await disableOfSubscriber(endpoint, standing);
    await failWithoutAttempt(delivery, guard);
    return 'endpoint_disabled';
  }

  const response = await deps.send({
    url: endpoint.url,
    secret: endpoint.secret,
    messageId: delivery.eventId,
    payload: delivery.payload,
  });
  const outcome = outcomeOf(response.statusCode);
  // Numbered when recorded (data/webhooks.ts recordAttempt): the delivery keeps only its last attempts.
  const attempt: AttemptRecord['attempt'] = {
    trigger: message.trigger,
    at: new Date().toISOString(),
    durationMs: response.durationMs,
    ...(response.statusCode !== null ? { statusCode: response.statusCode } : {}),
    ...(response.error !== null ? { error: response.error } : {}),
    ...(response.responseBody !== null ? { responseBody: response.responseBody } : {}),
  };

  let result: MessageResult;
  let recorded: boolean;
  if (message.trigger === 'auto') {
    const autoAttempts = delivery.autoAttempts + 1;
    const delay = nextDelay(autoAttempts, outcome);
    if (delay === null) {
      result = outcome === 'succeeded' ? 'delivered' : 'failed';
      recorded = await recordAttempt(
        delivery,
        {
          attempt,
          status: outcome === 'succeeded' ? 'succeeded' : 'failed',
          nextAttemptAt: null,
          autoAttempts,
          // The last attempt spends the token too, as a retry's new one does: a second copy of the
          // message (SQS and Scheduler deliver at least once) handled beside this one then finds its
          // token gone and records nothing. Kept, the token let that copy record the attempt again.
          scheduleToken: randomUUID().replaceAll('-', ''),
        },
        guard,
      );
    } else {
      const scaled = delay * deps.delayScale;
      const scheduleToken = randomUUID().replaceAll('-', '');
      result = 'retry_scheduled';
      recorded = await recordAttempt(
        delivery,
        {
          attempt,
          status: 'pending',
          nextAttemptAt: new Date(Date.now() + scaled).toISOString(),
          autoAttempts,
          scheduleToken,
        },
        guard,
      );
      if (recorded) await queueNextRung(deps.ladder, autoMessage(delivery, scheduleToken), scaled);
    }
  } else {
    // A requested send is one attempt. Success settles the delivery (a pending ladder then finds
    // nothing to do); a failure leaves a running ladder running, and anything else failed.
    const ladderRunning = delivery.status === 'pending' && delivery.nextAttemptAt !== undefined;
    const status = outcome === 'succeeded' ? 'succeeded' : ladderRunning ? 'pending' : 'failed';
    result = outcome === 'succeeded' ? 'delivered' : 'failed';
    recorded = await recordAttempt(
      delivery,
      {
        attempt,
        status,
        nextAttemptAt: status === 'pending' ? (delivery.nextAttemptAt ?? null) : null,
      },
      guard,
    );
  }
  if (!recorded) return 'duplicate';
  await countOutcome(endpoint, outcome, FAILURE_COUNT_WINDOW_MS * deps.delayScale);
  return result;
}

/** Tries to queue a rung this many times before leaving it to the sweeper. */
const RUNG_QUEUE_TRIES = 3;

/**
 * Queues the next rung of an attempt already recorded, retrying a failed send a few times. If it still
 * fails the message is not failed (its retry would find its token spent and do nothing): the delivery
 * stays pending and overdue, and the sweeper queues it again.
 */
async function queueNextRung(ladder: WebhookLadderPort, message: DeliveryMessage, delayMs: number) {
  for (let tries = 1; ; tries++) {
    try {
      await ladder.enqueue(message, delayMs);
      return;
    } catch (error) {
      if (tries >= RUNG_QUEUE_TRIES) {
        logger.error('webhook rung not queued: the sweeper will queue the delivery when it is overdue', {
          tenantId: message.tenantId,
          deliveryId: message.deliveryId,
          error: error as Error,
        });
        return;
      }
    }
  }
}

async function disableOfSubscriber(
  endpoint: WebhookEndpointRecord,
  reason: Exclude<SubscriberStanding, 'live'>,
): Promise<void> {
  if (await disableForSubscriber(endpoint, reason)) {
    countMetric(BusinessMetric.WebhookEndpointsDisabled);
    logger.warn('webhook endpoint disabled', {
      tenantId: endpoint.tenantId,
      endpointId: endpoint.id,
      reason,
    });
  }
}

/**
 * How close together failures count as one. The API documents that an endpoint is disabled after
 * 20 failed attempts in a row; a burst fans out up to 20 invocations × 10 messages to one endpoint,
 * so a receiver down for ten seconds would fail 20 attempts at once and lose its 3-day ladder. So a
 * failure counts only if none was counted in the minute before it (the first rung of the ladder):
 * disabling takes 20 failures spread over at least 19 minutes with no success in between, whatever
 * the traffic. A 410 still disables at once. The window shrinks with the ladder (RETRY_DELAY_SCALE).
 */
export const FAILURE_COUNT_WINDOW_MS = 60_000;

/** A success ends the endpoint's run of failures; 20 counted in a row, or one 410, disable it. */
async function countOutcome(
  endpoint: WebhookEndpointRecord,
  outcome: ReturnType<typeof outcomeOf>,
  windowMs: number,
) {
  if (outcome === 'succeeded') {
    await resetEndpointFailures(endpoint.tenantId, endpoint.id);
    return;
  }
  const failures = await countEndpointFailure(endpoint.tenantId, endpoint.id, windowMs);
  const reason: DisabledReason | undefined =
    outcome === 'gone'
      ? 'gone'
      : failures !== undefined && failures >= MAX_CONSECUTIVE_FAILURES
        ? 'failures'
        : undefined;
  if (!reason) return;
  // The Tenant Admins are told by the stream consumer, from this change (noticeEndpointDisabled).
  if (await disableEndpointOnce(endpoint.tenantId, endpoint.id, reason)) {
    countMetric(BusinessMetric.WebhookEndpointsDisabled);
    logger.warn('webhook endpoint disabled', {
      tenantId: endpoint.tenantId,
      endpointId: endpoint.id,
      reason,
    });
  }
}
