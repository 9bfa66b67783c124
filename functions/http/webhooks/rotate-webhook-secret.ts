import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointPath, SecretOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { rotateEndpointSecret } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'rotateWebhookSecret',
  {
    params: EndpointPath,
    responses: {
      200: { description: 'The new secret; the old one stops verifying at once', schema: SecretOut },
      404: {
        description: 'No endpoint with this id that this same key subscribed (console endpoints included)',
        schema: ErrorOut,
      },
      422: { description: 'endpoint_id is not a UUID', schema: ValidationErrorOut },
    },
  },
  async ({ params, caller }) => ({
    status: 200,
    body: {
      secret: await rotateEndpointSecret(caller.tenant.tenantId, params.endpoint_id, caller.apiKey.id),
    },
  }),
);

export const handler = operation.handler;
