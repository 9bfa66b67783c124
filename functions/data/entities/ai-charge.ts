import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * The receipt of one AI run charged to a Tenant's spend, keyed by the work it paid for (an
 * enrichment request, a scoring request). Written in the same transaction as the spend, only if
 * absent: a redelivered message finds it and is not charged twice.
 */
export const AiCharge = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'aiCharge', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          /** `enrich#<requestId>`, `score#<leadId>#<requestedAt>` */
          chargeId: { type: 'string', required: true, readOnly: true },
          month: { type: 'string', required: true, readOnly: true },
          costMicroUsd: { type: 'number', required: true, readOnly: true },
          chargedAt: { type: 'string', required: true, readOnly: true },
          /** Epoch seconds: kept longer than any queue keeps a message (SQS: 14 days at most). */
          ttl: { type: 'number', required: true, readOnly: true },
        },
        indexes: {
          byCharge: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'chargeId'],
              template: 't#${tenantId}#ai-charge#${chargeId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'charge', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
