import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * One Idempotency-Key of one API key. `in_progress` while the first request runs (a later one with
 * the same key gets 409), then `completed` with the stored answer for 24 hours (`ttl`).
 */
export const IdempotencyRecord = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'idempotencyRecord', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          apiKeyId: { type: 'string', required: true, readOnly: true },
          idempotencyKey: { type: 'string', required: true, readOnly: true },
          /** SHA-256 of method, route and body: a reuse with another request is refused (422). */
          fingerprint: { type: 'string', required: true },
          state: { type: ['in_progress', 'completed'] as const, required: true },
          /** Epoch ms after which an in_progress record is presumed abandoned (crashed worker). */
          lockedUntil: { type: 'number', required: true },
          /**
           * A random id of the request that claimed the key: the request recognizes its own claim when
           * the answer to its put was lost after it landed (a timeout, a 500), whether the SDK sent the
           * put again (which then fails its condition against this very claim) or the error reached it.
           */
          claimToken: { type: 'string' },
          /**
           * A random seed the request's created ids are derived from (functions/kernel/ids.ts). A retry
           * that takes over a lapsed claim of the same request keeps it, so it derives the same ids.
           */
          idSeed: { type: 'string' },
          responseStatus: { type: 'number' },
          responseHeaders: { type: 'any' },
          responseBody: { type: 'string' },
          /** Epoch seconds; DynamoDB TTL removes the record, readers also check it. */
          ttl: { type: 'number', required: true },
        },
        indexes: {
          byKey: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'apiKeyId', 'idempotencyKey'],
              template: 't#${tenantId}#idempotency#${apiKeyId}#${idempotencyKey}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'idempotency', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
