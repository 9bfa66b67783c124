import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * "This Tenant's catalogue snapshot is due a rebuild at `dueAt`": the debounce of the snapshot's
 * rebuilds (services/catalogue-snapshot.ts). Put only when none is there, so a burst of listing
 * changes (a bulk import) leaves one marker, and its rebuild takes in every change up to then. All
 * markers share one partition: the rebuilder lists the due ones with one Query, and there are at
 * most as many as Tenants with a change since their last rebuild.
 */
export const CatalogueRebuild = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'catalogueRebuild', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          /** ISO time from which the rebuild may run. */
          dueAt: { type: 'string', required: true },
        },
        indexes: {
          byTenant: {
            pk: { field: 'pk', composite: [], template: 'catalogue-rebuilds', ...asIs },
            sk: { field: 'sk', composite: ['tenantId'], template: 't#${tenantId}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
