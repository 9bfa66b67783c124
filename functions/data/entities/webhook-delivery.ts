import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, ownPartition, SERVICE, timestamps } from './common.ts';

/**
 * One event (or ping) to one endpoint, with every attempt made to deliver it. It carries its own
 * copy of the envelope, so a redelivery after the event log has expired still sends the same body.
 *
 * Pending retries live here (`nextAttemptAt`), and `scheduleToken` names the one queued message
 * allowed to make the next automatic attempt: a duplicate or stale message carries another token
 * and is dropped, so the ladder records the attempt with the next token first and queues that
 * message second, retried, with the sweeper behind it (at-least-once, never lost, never an
 * unrecorded POST). `sendRequestId` is an outbox for API-requested sends (redeliver, test): the stream consumer
 * queues a message for each new value, and `handledRequestId` records the last one sent.
 *
 * Bounded: kept DELIVERY_RETENTION_DAYS (`ttl`), and it holds its last
 * KEPT_ATTEMPTS attempts, each with at most KEPT_RESPONSE_BODY_BYTES of the receiver's answer, and
 * the count of every attempt made (`attemptCount`): manual redeliveries cannot grow it past DynamoDB's
 * 400 KB item limit (each kept attempt is ~4.3 KB at most, about 90 KB for all of them).
 */
/** How long a delivery is kept: longer than the 30 days of events that `recover` can reach back to. */
export const DELIVERY_RETENTION_DAYS = 90;
/** The attempts a delivery keeps, the latest ones: the whole retry ladder (9) and the last redeliveries. */
export const KEPT_ATTEMPTS = 20;
/** Of a receiver's answer, what an attempt keeps: the 4 KB the sender reads, enforced where it is stored. */
export const KEPT_RESPONSE_BODY_BYTES = 4096;

export const WebhookDelivery = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'webhookDelivery', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          endpointId: { type: 'string', required: true, readOnly: true },
          eventId: { type: 'string', required: true, readOnly: true },
          eventType: { type: 'string', required: true, readOnly: true },
          /** The envelope JSON, sent byte for byte on every attempt. */
          payload: { type: 'string', required: true, readOnly: true },
          status: { type: ['pending', 'succeeded', 'failed'] as const, required: true },
          attempts: {
            type: 'list',
            required: true,
            default: () => [],
            items: {
              type: 'map',
              properties: {
                number: { type: 'number', required: true },
                trigger: { type: ['auto', 'manual', 'test'] as const, required: true },
                at: { type: 'string', required: true },
                statusCode: { type: 'number' },
                durationMs: { type: 'number', required: true },
                error: { type: 'string' },
                responseBody: { type: 'string' },
              },
            },
          },
          /**
           * Every attempt made (manual and test ones too); `attempts` keeps the last KEPT_ATTEMPTS.
           * Absent on deliveries made before it was counted: there `attempts` holds them all.
           */
          attemptCount: { type: 'number', default: 0 },
          /** Epoch seconds: DynamoDB TTL removes the delivery DELIVERY_RETENTION_DAYS after it was created. */
          ttl: {
            type: 'number',
            readOnly: true,
            default: () => Math.floor(Date.now() / 1000) + DELIVERY_RETENTION_DAYS * 86_400,
          },
          /** Automatic attempts made so far: the rung of the retry ladder. */
          autoAttempts: { type: 'number', required: true, default: 0 },
          nextAttemptAt: { type: 'string' },
          scheduleToken: { type: 'string', required: true },
          /**
           * Times the sweeper queued this delivery again since its last attempt: each one doubles the
           * wait before the next (a queue backed up longer than the overdue window is not a lost message).
           */
          sweeps: { type: 'number' },
          sendRequestId: { type: 'string' },
          sendRequestTrigger: { type: ['manual', 'test'] as const },
          handledRequestId: { type: 'string' },
          ...timestamps,
        },
        indexes: {
          byId: ownPartition('webhook-delivery'),
          byEndpoint: {
            index: 'gsi1',
            pk: {
              field: 'gsi1pk',
              composite: ['tenantId', 'endpointId'],
              template: 't#${tenantId}#webhook#${endpointId}#deliveries',
              ...asIs,
            },
            sk: { field: 'gsi1sk', composite: ['createdAt', 'id'], template: '${createdAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
