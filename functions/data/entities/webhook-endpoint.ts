import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, ownPartition, SERVICE, timestamps } from './common.ts';

/**
 * A webhook endpoint of a Tenant: where its events are delivered, signed with `secret`. Never
 * hard-deleted: unsubscribing sets `deletedAt` (the delivery log stays readable by id in the data).
 */
export const WebhookEndpoint = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'webhookEndpoint', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          url: { type: 'string', required: true, readOnly: true },
          events: { type: 'list', items: { type: 'string' }, required: true },
          enabled: { type: 'boolean', required: true },
          /** The Standard Webhooks secret (`whsec_…`); shown on creation and rotation only. */
          secret: { type: 'string', required: true },
          createdVia: { type: ['api', 'console'] as const, required: true, readOnly: true },
          /** The API key that subscribed it (API only): DELETE and key revocation go by it. */
          createdByKeyId: { type: 'string', readOnly: true },
          /** Failed attempts in a row across its deliveries; 20 disable the endpoint. */
          consecutiveFailures: { type: 'number', required: true, default: 0 },
          /**
           * When the last failure was counted: failures within a window of it (one receiver blip, a
           * burst of deliveries failing together) count as one.
           */
          failureCountedAt: { type: 'string' },
          disabledReason: { type: ['failures', 'gone', 'key_revoked', 'key_expired', 'manual'] as const },
          disabledAt: { type: 'string' },
          deletedAt: { type: 'string' },
          ...timestamps,
        },
        indexes: {
          byId: ownPartition('webhook'),
          byTenant: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['tenantId'], template: 't#${tenantId}#webhooks', ...asIs },
            sk: { field: 'gsi1sk', composite: ['createdAt', 'id'], template: '${createdAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
