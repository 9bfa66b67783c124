import { Entity } from 'electrodb';
import { IMPORT_FAILURE_REASONS, IMPORT_STATUSES } from '../../domain/images.ts';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps } from './common.ts';

/**
 * The import of one photo into one listing (pending, then ready or failed; docs/photos.md): from a URL,
 * or from a confirmed upload (whose original the confirm kept under `originals/`). Its id is derived
 * from the Tenant, the listing and the URL or upload key (domain/images.ts `importIdFor`,
 * `uploadImportIdFor`), so a repeat finds it by key. It lives in the listing's partition, beside the
 * listing (`sk` does not begin with `property`, so the listing's reads never load it). `attempt` counts
 * the fetches requested: a worker holding a message of an older attempt stands down.
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
          /** The URL imported; absent for a confirmed upload. */
          url: { type: 'string', readOnly: true },
          /** The confirmed upload's key (`uploads/…`); absent for an import by URL. */
          objectKey: { type: 'string', readOnly: true },
          /** Where a confirmed upload's original is kept (`originals/…`), to be rendered by the worker. */
          originalKey: { type: 'string', readOnly: true },
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
