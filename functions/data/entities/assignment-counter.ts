import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE } from './common.ts';

/**
 * The round-robin turn of a Tenant's Lead assignment: one item per Tenant, advanced with an atomic
 * ADD, so concurrent assignments each get their own turn and spread evenly over the Agents.
 */
export const AssignmentCounter = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'assignmentCounter', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          turns: { type: 'number', required: true, default: 0 },
        },
        indexes: {
          byTenant: {
            pk: { field: 'pk', composite: ['tenantId'], template: 't#${tenantId}#lead-assignment', ...asIs },
            sk: { field: 'sk', composite: [], template: 'counter', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
