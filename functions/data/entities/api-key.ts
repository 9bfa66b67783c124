import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * An API key: a secret key (`svc_live_`, scopes) or a publishable key (`svc_pk_`, allowed origins).
 * Only the SHA-256 of the key is stored; the item is found by that hash.
 */
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
          /** Items written before publishable keys existed have no kind: they are secret keys. */
          kind: { type: ['secret', 'publishable'] as const, required: true, default: 'secret' },
          scopes: { type: 'list', items: { type: 'string' }, required: true },
          /** Publishable keys only: the origins (domain/origins.ts) a page may call from. */
          origins: { type: 'list', items: { type: 'string' } },
          /** When a secret key was seen in a publishable call's query string (400, and marked exposed). */
          exposedAt: { type: 'string' },
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
