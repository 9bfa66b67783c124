import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * A listing's place in an Area and how it got there (rule, manual) or was taken out (excluded).
 * Stored in the listing's partition (sort key after `property`) so one Query reads a listing with
 * its Areas; indexed by Area to recompute an Area's members.
 */
export const AreaMembership = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'areaMembership', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          areaId: { type: 'string', required: true, readOnly: true },
          via: { type: ['rule', 'manual', 'excluded'] as const, required: true },
          /** Copied from the Area so that a listing read labels its Areas without reading them. */
          areaKind: { type: ['region', 'zone', 'neighborhood', 'community'] as const, required: true },
          areaName: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
        },
        indexes: {
          byListing: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'propertyId'],
              template: 't#${tenantId}#property#${propertyId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: ['areaId'], template: 'property#area#${areaId}', ...asIs },
          },
          byArea: {
            index: 'gsi1',
            pk: {
              field: 'gsi1pk',
              composite: ['tenantId', 'areaId'],
              template: 't#${tenantId}#area#${areaId}#members',
              ...asIs,
            },
            sk: { field: 'gsi1sk', composite: ['propertyId'], template: '${propertyId}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
