import { ActivityCreate, ActivityOut, LeadPath, toActivityOut } from '../../contract/activities.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { addActivity } from '../../services/activities.ts';

export const operation = defineOperation(
  'createActivity',
  {
    params: LeadPath,
    body: ActivityCreate,
    responses: {
      201: { description: 'The new Activity, open', schema: ActivityOut },
      404: { description: 'No Lead with this id in this tenant', schema: ErrorOut },
      422: {
        description:
          'Validation failure; due_at missing for a task, visit or meeting; property_id not a listing of this tenant',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller, ids }) => {
    const activity = await addActivity(
      { tenantId: caller.tenant.tenantId, name: caller.apiKey.name },
      params.lead_id,
      body,
      ids,
    );
    return { status: 201, body: toActivityOut(activity) };
  },
);

export const handler = operation.handler;
