import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * The receipt of a stream reaction's side effect that cannot take an idempotency key of its own
 * (an email), keyed by what it was about (`owner-notice#inquiry#<inquiryId>`…). Written once the
 * effect succeeded, so a retried stream record finds it and does not repeat the effect, while a
 * failed effect leaves none and is tried again.
 */
export const ReactionReceipt = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'reactionReceipt', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          receiptKey: { type: 'string', required: true, readOnly: true },
          doneAt: { type: 'string', required: true, readOnly: true },
          /** Epoch seconds: kept well past the stream's retention (24 h) and the consumer's retries. */
          ttl: { type: 'number', required: true, readOnly: true },
        },
        indexes: {
          byKey: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'receiptKey'],
              template: 't#${tenantId}#reaction#${receiptKey}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'receipt', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
