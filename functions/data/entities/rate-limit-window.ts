import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * One fixed one-minute window of one Tenant. The tenant budget's counter is `tenantCount`; each API
 * key's counter is a top-level attribute `key_<apiKeyId>` added by data/rate-limits.ts, so that a
 * single UpdateItem counts a request against every budget at once.
 */
export const RateLimitWindow = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'rateLimitWindow', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          /** Epoch seconds of the window's start. */
          windowStart: { type: 'number', required: true, readOnly: true },
          tenantCount: { type: 'number' },
          ttl: { type: 'number' },
        },
        indexes: {
          byWindow: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'windowStart'],
              template: 't#${tenantId}#rate#${windowStart}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'window', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
