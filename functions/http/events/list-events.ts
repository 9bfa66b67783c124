import { EventListQuery, EventOut } from '../../contract/events.ts';
import { ErrorOut, pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listEvents } from '../../services/events.ts';

export const operation = defineOperation(
  'listEvents',
  {
    query: EventListQuery,
    responses: {
      200: {
        description: 'A page of events of the last 30 days, oldest first, of the kinds the key may read',
        schema: pageOf(EventOut),
      },
      403: {
        description:
          'The key has none of leads:read, activities:read, properties:read, or not the one `type` needs',
        schema: ErrorOut,
      },
      422: {
        description:
          'Invalid limit or cursor, an unknown type, a since without a UTC offset or naming an unknown event',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listEvents({ tenantId: caller.tenant.tenantId, scopes: caller.apiKey.scopes }, query),
  }),
);

export const handler = operation.handler;
