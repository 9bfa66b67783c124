import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * A message of the local queue adapter (kernel/ports/queue.ts): what SQS holds in AWS, the local
 * stack keeps here, so that any process (the API, the admin CLI) can enqueue and the local stack's
 * poller delivers. Sorted by the time the message becomes visible (delays, retries with backoff).
 */
export const LocalQueueMessage = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'localQueueMessage', version: '1' },
        attributes: {
          queue: { type: 'string', required: true, readOnly: true },
          /** Epoch ms, zero-padded so that the sort key orders by time. */
          visibleAt: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          body: { type: 'string', required: true },
          receiveCount: { type: 'number', required: true, default: 0 },
        },
        indexes: {
          byVisibility: {
            pk: { field: 'pk', composite: ['queue'], template: 'global#local-queue#${queue}', ...asIs },
            sk: { field: 'sk', composite: ['visibleAt', 'id'], template: '${visibleAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
