import {
  ActivityPath,
  ActivityUpdate,
  ActivityUpdateAnswer,
  toActivityOut,
  toActivityUpdateReceipt,
} from '../../contract/activities.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { grants } from '../../domain/scopes.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { editActivity } from '../../services/activities.ts';

export const operation = defineOperation(
  'updateActivity',
  {
    params: ActivityPath,
    body: ActivityUpdate,
    responses: {
      200: {
        description:
          'The Activity after the edit, to a key holding activities:read; to a key without it (activities:write grants writes alone), only the Activity id and the fields the request sent (kind, title, body, due_at, reminder_at, assignee_user_id, property_id, completed, each when sent), never the stored Activity',
        schema: ActivityUpdateAnswer,
      },
      404: { description: 'No Activity with this id in this tenant', schema: ErrorOut },
      409: { description: 'The Activity kept changing under concurrent edits; retry', schema: ErrorOut },
      422: {
        description:
          'Validation failure, an empty body included (at ["body"]: send at least one field); a task, visit or meeting left without due_at; property_id not a listing of this tenant',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => {
    const activity = await editActivity(caller.tenant.tenantId, params.activity_id, body);
    return {
      status: 200,
      body: grants(caller.apiKey.scopes, 'activities:read')
        ? toActivityOut(activity)
        : toActivityUpdateReceipt(activity.id, body),
    };
  },
);

export const handler = operation.handler;
