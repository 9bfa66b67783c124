import { Entity } from 'electrodb';
import { ACTIVITY_KINDS } from '../../domain/activities.ts';
import { asIs, entityConfig, lazyEntity, ownPartition, SERVICE, timestamps, updatedOrder } from './common.ts';

/**
 * An Activity of a Lead: a task, call, visit, meeting or note (docs/activities.md). Dates are
 * stored as UTC ISO strings. Indexes:
 * - byId: the Activity's own partition (GET/PATCH /v1/activities/{activity_id});
 * - gsi1: every Activity of a Tenant by (updatedAt, id) (GET /v1/activities);
 * - gsi2: a Lead's Activities by (updatedAt, id) (GET /v1/leads/{lead_id}/activities).
 */
export const Activity = lazyEntity(
  () =>
    new Entity(
      {
        model: { service: SERVICE, entity: 'activity', version: '1' },
        attributes: {
          tenantId: { type: 'string', required: true, readOnly: true },
          id: { type: 'string', required: true, readOnly: true },
          leadId: { type: 'string', required: true, readOnly: true },
          kind: { type: ACTIVITY_KINDS, required: true },
          title: { type: 'string', required: true },
          body: { type: 'string' },
          dueAt: { type: 'string' },
          reminderAt: { type: 'string' },
          assigneeUserId: { type: 'string' },
          /** A listing of the same Tenant the Activity is about (checked on write). */
          propertyId: { type: 'string' },
          completed: { type: 'boolean', required: true, default: false },
          completedAt: { type: 'string' },
          /** Name of the API key (or the integration) that created the Activity. */
          createdBy: { type: 'string', required: true, readOnly: true },
          ...timestamps,
        },
        indexes: {
          byId: ownPartition('activity'),
          byUpdated: updatedOrder('gsi1', 'activities'),
          byLead: {
            index: 'gsi2',
            pk: {
              field: 'gsi2pk',
              composite: ['tenantId', 'leadId'],
              template: 't#${tenantId}#lead#${leadId}#activities',
              ...asIs,
            },
            sk: { field: 'gsi2sk', composite: ['updatedAt', 'id'], template: '${updatedAt}#${id}', ...asIs },
          },
        },
      },
      entityConfig(),
    ),
);
