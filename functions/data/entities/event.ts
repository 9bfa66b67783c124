import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, ownPartition, SERVICE } from './common.ts';

/**
 * One event of the events log (docs/events-and-webhooks.md), written by the stream consumer and kept 30 days
 * (`ttl`; readers also filter by `createdAt`, since DynamoDB TTL deletes late).
 *
 * Contract with the webhook fan-out, which reads INSERTs of this entity from the stream: the
 * ElectroDB entity name is `event`, and the item carries `tenantId`, `id` (the event id), `type`,
 * `createdAt` (the envelope's `created_at`) and `envelope` (the JSON text of the whole event
 * envelope). Keep these names.
 *
 * Indexes:
 * - byId: the event's own partition (GET /v1/events/{event_id}; `since` given as an event id);
 * - gsi1: a group's events (`leads`: lead.* and inquiry.*; `activities`; `properties`) by
 *   (createdAt, id): the catch-up list reads one partition per group the key's scopes cover;
 * - gsi2: one type's events by (createdAt, id): the catch-up list with `type`.
 */
export const Event = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'event', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          type: { type: 'string', required: true, readOnly: true },
          /** The read scope's group of the type (domain/events.ts EVENT_GROUPS). */
          group: { type: 'string', required: true, readOnly: true },
          /** The envelope's created_at: UTC, microseconds, `+00:00`; sorts as text. */
          createdAt: { type: 'string', required: true, readOnly: true },
          envelope: { type: 'string', required: true, readOnly: true },
          /** Epoch seconds: DynamoDB TTL removes the event 30 days after it was created. */
          ttl: { type: 'number', required: true, readOnly: true },
        },
        indexes: {
          byId: ownPartition('event'),
          byGroup: {
            index: 'gsi1',
            pk: {
              field: 'gsi1pk',
              composite: ['tenantId', 'group'],
              template: 't#${tenantId}#events#${group}',
              ...asIs,
            },
            sk: { field: 'gsi1sk', composite: ['createdAt', 'id'], template: '${createdAt}#${id}', ...asIs },
          },
          byType: {
            index: 'gsi2',
            pk: {
              field: 'gsi2pk',
              composite: ['tenantId', 'type'],
              template: 't#${tenantId}#events#type#${type}',
              ...asIs,
            },
            sk: { field: 'gsi2sk', composite: ['createdAt', 'id'], template: '${createdAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
