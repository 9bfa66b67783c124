import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointPath } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { unsubscribeEndpoint } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'deleteWebhookSubscription',
  {
    params: EndpointPath,
    responses: {
      204: { description: 'Unsubscribed: nothing more is sent; the endpoint is kept, marked unsubscribed' },
      404: {
        description: 'No endpoint with this id that this same key subscribed (console endpoints included)',
        schema: ErrorOut,
      },
      422: { description: 'endpoint_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => {
    await unsubscribeEndpoint(caller.tenant.tenantId, params.endpoint_id, caller.apiKey.id);
    return { status: 204 };
  },
);

export const handler = operation.handler;
