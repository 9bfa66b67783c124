import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointOut, EndpointPath, toEndpointOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { requireEndpoint } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'getWebhook',
  {
    params: EndpointPath,
    responses: {
      200: { description: 'The endpoint', schema: EndpointOut },
      404: {
        description: 'No endpoint with this id that this same key subscribed or the console registered',
        schema: ErrorOut,
      },
      422: { description: 'endpoint_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: toEndpointOut(
      await requireEndpoint(caller.tenant.tenantId, params.endpoint_id, caller.apiKey.id, 'read'),
    ),
  }),
);

export const handler = operation.handler;
