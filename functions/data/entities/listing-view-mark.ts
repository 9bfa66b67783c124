import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * One visitor's view of one listing in one minute: created only if absent, so that repeated views
 * from one visitor IP within a minute count once. Expires with TTL (and is ignored once expired).
 */
export const ListingViewMark = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'listingViewMark', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          visitor: { type: 'string', required: true, readOnly: true },
          windowStart: { type: 'number', required: true, readOnly: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          byVisit: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'propertyId', 'visitor', 'windowStart'],
              template: 't#${tenantId}#view#${propertyId}#${visitor}#${windowStart}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'view', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
