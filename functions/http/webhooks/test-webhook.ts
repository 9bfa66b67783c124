import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { DeliveryOut, EndpointPath, toDeliveryOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { sendTestPing } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'testWebhook',
  {
    params: EndpointPath,
    responses: {
      202: {
        description: 'The ping delivery, queued (data {endpoint_id}; logged as test)',
        schema: DeliveryOut,
      },
      404: {
        description: 'No endpoint with this id that this same key subscribed (console endpoints included)',
        schema: ErrorOut,
      },
      422: {
        description: `endpoint_id is not a UUID, or the endpoint is disabled (type endpoint_disabled at ["path", "endpoint_id"]: enable it first)`,
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, caller }) => ({
    status: 202,
    body: toDeliveryOut(await sendTestPing(caller.tenant, params.endpoint_id, caller.apiKey.id)),
  }),
);

export const handler = operation.handler;
