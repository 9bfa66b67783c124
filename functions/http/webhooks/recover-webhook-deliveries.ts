import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointPath, RecoverIn, RecoverOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { recoverFailedDeliveries } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'recoverWebhookDeliveries',
  {
    params: EndpointPath,
    body: RecoverIn,
    responses: {
      202: {
        description:
          'The failed deliveries of this endpoint created since `since` (pings left out) are queued: each is sent once more with its webhook-id, logged as manual, like a redelivery. Re-enabling an endpoint does not do this: it only resets the failure count and sends the events that come after it',
        schema: RecoverOut,
      },
      404: {
        description: 'No endpoint with this id that this same key subscribed (console endpoints included)',
        schema: ErrorOut,
      },
      422: {
        description:
          'endpoint_id is not a UUID; since is missing, has no UTC offset, is older than 30 days or in the future; or the endpoint is disabled (type endpoint_disabled: enable it first)',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ params, body, caller }) => ({
    status: 202,
    body: {
      count: await recoverFailedDeliveries(
        caller.tenant.tenantId,
        params.endpoint_id,
        caller.apiKey.id,
        body.since,
      ),
    },
  }),
);

export const handler = operation.handler;
