import { ActivityOut, ActivityPath, toActivityOut } from '../../contract/activities.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readActivity } from '../../services/activities.ts';

export const operation = defineOperation(
  'getActivity',
  {
    params: ActivityPath,
    responses: {
      200: { description: 'The Activity', schema: ActivityOut },
      404: { description: 'No Activity with this id in this tenant', schema: ErrorOut },
      422: { description: 'activity_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: toActivityOut(await readActivity(caller.tenant.tenantId, params.activity_id)),
  }),
);

export const handler = operation.handler;
