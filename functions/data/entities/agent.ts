import { Entity } from 'electrodb';
import { asIs, entityConfig, lazyEntity, SERVICE, timestamps, updatedOrder } from './common.ts';

/**
 * A person of the agency who owns listings and Leads. Email and slug are unique per Tenant.
 * Indexes: byId (GET /v1/agents/{agent_id}); gsi1 by id (the round-robin order of Lead assignment);
 * gsi2 by email (`agent_email`); gsi3 by (updatedAt, id) (GET /v1/agents, the paged-list order).
 */
export const Agent = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'agent', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          slug: { type: 'string', required: true },
          name: { type: 'string', required: true },
          /** Stored lowercased and trimmed; it is how integrators name an Agent (agent_email). */
          email: { type: 'string', required: true },
          phone: { type: 'string' },
          isAdmin: { type: 'boolean', required: true, default: false },
          isActive: { type: 'boolean', required: true, default: true },
          ...timestamps,
        },
        indexes: {
          byId: {
            pk: {
              field: 'pk',
              composite: ['tenantId', 'id'],
              template: 't#${tenantId}#agent#${id}',
              ...asIs,
            },
            sk: { field: 'sk', composite: [], template: 'agent', ...asIs },
          },
          byTenant: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['tenantId'], template: 't#${tenantId}#agents', ...asIs },
            sk: { field: 'gsi1sk', composite: ['id'], template: '${id}', ...asIs },
          },
          byEmail: {
            index: 'gsi2',
            pk: {
              field: 'gsi2pk',
              composite: ['tenantId', 'email'],
              template: 't#${tenantId}#agent-email#${email}',
              ...asIs,
            },
            sk: { field: 'gsi2sk', composite: [], template: 'agent', ...asIs },
          },
          byUpdated: updatedOrder('gsi3', 'agents'),
        },
      },
      entityConfig(),
    ),
);
