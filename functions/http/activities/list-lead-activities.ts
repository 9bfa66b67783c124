import { defineOperation } from '../../platform/operation.ts';
import { listActivities } from '../../services/activities.ts';
import { ErrorOut, pageOf, ValidationErrorOut } from '../shared/schemas.ts';
import { ActivityListQuery, ActivityOut, LeadPath, toActivityOut } from './schemas.ts';

export const operation = defineOperation(
  'listLeadActivities',
  {
    params: LeadPath,
    query: ActivityListQuery,
    responses: {
      200: {
        description: "A page of the Lead's Activities, least recently updated first",
        schema: pageOf(ActivityOut),
      },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      422: { description: 'Invalid lead_id, limit, cursor or updated_since', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => ({
    status: 200,
    body: await listActivities(caller.tenant.tenantId, query, toActivityOut, params.lead_id),
  }),
);

export const handler = operation.handler;
