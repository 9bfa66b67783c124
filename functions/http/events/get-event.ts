import { EventOut, EventPath } from '../../contract/events.ts';
import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { readEvent } from '../../services/events.ts';

export const operation = defineOperation(
  'getEvent',
  {
    params: EventPath,
    responses: {
      200: { description: 'The event envelope', schema: EventOut },
      403: {
        description: 'The key has none of leads:read, activities:read, properties:read',
        schema: ErrorOut,
      },
      404: {
        description: 'No event with this id that the key may read, in the last 30 days',
        schema: ErrorOut,
      },
      422: { description: 'event_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: await readEvent(
      { tenantId: caller.tenant.tenantId, scopes: caller.apiKey.scopes },
      params.event_id,
    ),
  }),
);

export const handler = operation.handler;
