import { defineOperation } from '../../api/operation.ts';
import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointOut, toEndpointOut, WebhookPageQuery } from '../../contract/webhooks.ts';
import { listEndpoints } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'listWebhooks',
  {
    query: WebhookPageQuery,
    responses: {
      200: {
        description: 'A page of endpoints, oldest first by (created_at, id)',
        schema: pageOf(EndpointOut),
      },
      422: { description: 'Invalid limit or cursor', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listEndpoints(caller.tenant.tenantId, query, toEndpointOut),
  }),
);

export const handler = operation.handler;
