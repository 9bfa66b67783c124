import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps } from './common.ts';

/**
 * An Area of a Tenant (region, zone, neighborhood, community). Its rule is the list of Places it
 * covers: a listing whose Place is one of them, or under one, is in the Area (community Areas have
 * manual membership only, so no rule).
 */
export const Area = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'area', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          kind: { type: ['region', 'zone', 'neighborhood', 'community'] as const, required: true },
          name: { type: 'string', required: true },
          placeCodes: { type: 'list', items: { type: 'string' }, required: true, default: () => [] },
          ...timestamps,
        },
        indexes: {
          byId: {
            pk: { field: 'pk', composite: ['tenantId', 'id'], template: 't#${tenantId}#area#${id}', ...asIs },
            sk: { field: 'sk', composite: [], template: 'area', ...asIs },
          },
          byTenant: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['tenantId'], template: 't#${tenantId}#areas', ...asIs },
            sk: { field: 'gsi1sk', composite: ['id'], template: '${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
