import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/** A Tenant's AI spend in one calendar month (UTC), checked against its monthly ceiling. */
export const AiSpend = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'aiSpend', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          /** "2026-11" */
          month: { type: 'string', required: true, readOnly: true },
          /** Millionths of a dollar, so that spend adds up exactly. */
          costMicroUsd: { type: 'number', required: true, default: 0 },
          inputTokens: { type: 'number', required: true, default: 0 },
          outputTokens: { type: 'number', required: true, default: 0 },
          runs: { type: 'number', required: true, default: 0 },
        },
        indexes: {
          byMonth: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'month'],
              template: 't#${tenantId}#ai-spend#${month}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'spend', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
