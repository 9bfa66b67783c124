import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, ownPartition, SERVICE, timestamps } from './common.ts';

/**
 * One event (or ping) to one endpoint, with every attempt made to deliver it. It carries its own
 * copy of the envelope, so a redelivery after the event log has expired still sends the same body.
 *
 * Pending retries live here (`nextAttemptAt`), and `scheduleToken` names the one queued message
 * allowed to make the next automatic attempt: a duplicate or stale message carries another token
 * and is dropped, so the ladder can always re-queue first and record second (at-least-once, never
 * lost). `sendRequestId` is an outbox for API-requested sends (redeliver, test): the stream consumer
 * queues a message for each new value, and `handledRequestId` records the last one sent.
 */
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
          /** Automatic attempts made so far: the rung of the retry ladder. */
          autoAttempts: { type: 'number', required: true, default: 0 },
          nextAttemptAt: { type: 'string' },
          scheduleToken: { type: 'string', required: true },
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
