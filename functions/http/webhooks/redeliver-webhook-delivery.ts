import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { DeliveryOut, DeliveryPath, toDeliveryOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { redeliver } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'redeliverWebhookDelivery',
  {
    params: DeliveryPath,
    responses: {
      202: {
        description: 'Queued: sent again with the same webhook-id (logged as manual)',
        schema: DeliveryOut,
      },
      404: {
        description:
          'No endpoint with this id that this same key subscribed (console endpoints included), or no such delivery of it',
        schema: ErrorOut,
      },
      422: {
        description: `endpoint_id or delivery_id is not a UUID, or the endpoint is disabled (type endpoint_disabled at ["path", "endpoint_id"]: enable it first)`,
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, caller }) => ({
    status: 202,
    body: toDeliveryOut(
      await redeliver(caller.tenant.tenantId, params.endpoint_id, caller.apiKey.id, params.delivery_id),
    ),
  }),
);

export const handler = operation.handler;
