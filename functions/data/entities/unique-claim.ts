import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * A claim on a value that must be unique within a scope (a Tenant's internal_ref or slug, a
 * tenant slug platform-wide). Written with `create` (attribute_not_exists) in the same transaction
 * as the record that owns it, so two concurrent writers cannot both win.
 */
export const UniqueClaim = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'uniqueClaim', version: '1' },
        attributes: {
          /** `t#<tenantId>` for tenant-owned values, `global` for platform-wide ones. */
          scope: { type: 'string', required: true, readOnly: true },
          kind: {
            type: [
              'tenant-slug',
              'agent-slug',
              'agent-email',
              'property-ref',
              'property-slug',
              'lead-email',
              'lead-phone',
              // An API key's id → its hash (ownerId): the key by id, read consistently (api-keys.ts).
              'api-key-id',
            ] as const,
            required: true,
            readOnly: true,
          },
          value: { type: 'string', required: true, readOnly: true },
          ownerId: { type: 'string', required: true },
          /** A retired claim still resolves (old slugs) but no longer blocks the owner from a new one. */
          retired: { type: 'boolean', default: false },
          createdAt: { type: 'string', required: true, readOnly: true },
        },
        indexes: {
          byValue: {
            pk: {
              field: 'pk',
              composite: ['scope', 'kind', 'value'],
              template: '${scope}#unique#${kind}#${value}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'claim', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
