import { ActivityListQuery, ActivityOut, toActivityOut } from '../../contract/activities.ts';
import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listActivities } from '../../services/activities.ts';

export const operation = defineOperation(
  'listActivities',
  {
    query: ActivityListQuery,
    responses: {
      200: {
        description: 'A page of Activities of every Lead, least recently updated first',
        schema: pageOf(ActivityOut),
      },
      422: { description: 'Invalid limit, cursor or updated_since', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listActivities(caller.tenant.tenantId, query, toActivityOut),
  }),
);

export const handler = operation.handler;
