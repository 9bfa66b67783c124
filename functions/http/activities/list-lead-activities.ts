import { ActivityListQuery, ActivityOut, LeadPath, toActivityOut } from '../../contract/activities.ts';
import { ErrorOut, pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listActivities } from '../../services/activities.ts';

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
