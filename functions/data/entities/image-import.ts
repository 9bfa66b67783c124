import { Entity } from 'electrodb';
import { IMPORT_FAILURE_REASONS, IMPORT_STATUSES } from '../../domain/images.ts';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps } from './common.ts';

/**
 * The import of one photo URL into one listing (interface §3.5). Its id is derived from the Tenant,
 * the listing and the URL (domain/images.ts `importIdFor`), so a repeat of the same URL finds it by
 * key. It lives in the listing's partition, beside the listing (`sk` does not begin with `property`,
 * so the listing's reads never load it). `attempt` counts the fetches requested: a worker holding a
 * message of an older attempt stands down.
 */
export const ImageImport = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'imageImport', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          propertyId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          url: { type: 'string', required: true, readOnly: true },
          status: { type: IMPORT_STATUSES, required: true },
          /** What the import asked of the gallery (latest request wins on a retry). */
          isPrimary: { type: 'boolean' },
          sortOrder: { type: 'number' },
          attempt: { type: 'number', required: true },
          /** When the latest fetch was queued (a lost message is queued again after a while). */
          queuedAt: { type: 'string', required: true },
          imageId: { type: 'string' },
          failureReason: { type: IMPORT_FAILURE_REASONS },
          failureStatus: { type: 'number' },
          failureDetail: { type: 'string' },
          ...timestamps,
        },
        indexes: {
          byId: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'propertyId'],
              template: 't#${tenantId}#property#${propertyId}',
              ...asIs,
            },
            sk: { field: 'sk', composite: ['id'], template: 'image-import#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
