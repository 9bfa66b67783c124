import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointOut, EndpointPatchIn, EndpointPath, toEndpointOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { setEndpointEnabled } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'updateWebhook',
  {
    params: EndpointPath,
    body: EndpointPatchIn,
    responses: {
      200: {
        description:
          'The endpoint. Enabling resets the failure count and sends the events that come after it; deliveries that fell due while it was disabled stay failed: send them again with POST /v1/webhooks/{endpoint_id}/recover (or one by one with :redeliver)',
        schema: EndpointOut,
      },
      404: {
        description: 'No endpoint with this id that this same key subscribed (console endpoints included)',
        schema: ErrorOut,
      },
      422: {
        description:
          'enabled missing or not a boolean; or enabled: true on an endpoint whose subscribing key is revoked or expired',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => ({
    status: 200,
    body: toEndpointOut(
      await setEndpointEnabled(caller.tenant.tenantId, params.endpoint_id, caller.apiKey.id, body.enabled),
    ),
  }),
);

export const handler = operation.handler;
