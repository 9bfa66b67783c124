import { defineOperation } from '../../platform/operation.ts';
import { listActivities } from '../../services/activities.ts';
import { pageOf, ValidationErrorOut } from '../shared/schemas.ts';
import { ActivityListQuery, ActivityOut, toActivityOut } from './schemas.ts';

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
