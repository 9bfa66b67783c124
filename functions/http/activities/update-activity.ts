import { defineOperation } from '../../api/operation.ts';
import { ActivityOut, ActivityPath, ActivityUpdate, toActivityOut } from '../../contract/activities.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { editActivity } from '../../services/activities.ts';

export const operation = defineOperation(
  'updateActivity',
  {
    params: ActivityPath,
    body: ActivityUpdate,
    responses: {
      200: { description: 'The Activity after the edit', schema: ActivityOut },
      404: { description: 'No Activity with this id in this tenant', schema: ErrorOut },
      409: { description: 'The Activity kept changing under concurrent edits; retry', schema: ErrorOut },
      422: {
        description:
          'Validation failure; a task, visit or meeting left without due_at; property_id not a listing of this tenant',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => ({
    status: 200,
    body: toActivityOut(await editActivity(caller.tenant.tenantId, params.activity_id, body)),
  }),
);

export const handler = operation.handler;
