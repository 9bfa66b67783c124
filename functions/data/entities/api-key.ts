import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/** A secret API key. Only the SHA-256 of the secret is stored; the item is found by that hash. */
export const ApiKey = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'apiKey', version: '1' },
        attributes: {
          keyHash: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          tenantId: { type: 'string', required: true, readOnly: true },
          name: { type: 'string', required: true },
          scopes: { type: 'list', items: { type: 'string' }, required: true },
          /** The first characters of the secret, enough to recognise it in the console. */
          displayPrefix: { type: 'string', required: true },
          createdAt: { type: 'string', required: true, readOnly: true },
          expiresAt: { type: 'string' },
          revokedAt: { type: 'string' },
        },
        indexes: {
          byHash: {
            pk: { field: 'pk', composite: ['keyHash'], template: 'global#api-key#${keyHash}', ...asIs },
            sk: { field: 'sk', composite: [], template: 'api-key', ...asIs },
          },
          byTenant: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['tenantId'], template: 't#${tenantId}#api-keys', ...asIs },
            sk: { field: 'gsi1sk', composite: ['id'], template: '${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
