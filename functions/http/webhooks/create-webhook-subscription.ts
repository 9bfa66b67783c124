import { ErrorOut, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointWithSecretOut, SubscriptionIn, toEndpointOut } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { createEndpoint } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'createWebhookSubscription',
  {
    body: SubscriptionIn,
    responses: {
      201: { description: 'Subscribed; the secret is shown only here', schema: EndpointWithSecretOut },
      403: {
        description: 'The key lacks webhooks:manage, or the read scope of a subscribed event type',
        schema: ErrorOut,
      },
      422: {
        description:
          'A URL that is not https on a public host; an unknown event type, ping, or no event type',
        schema: ValidationErrorOut,
      },
    },
  },
  async ({ body, caller }) => {
    const endpoint = await createEndpoint({
      tenantId: caller.tenant.tenantId,
      url: body.url,
      events: body.events,
      via: 'api',
      apiKey: { id: caller.apiKey.id },
    });
    return { status: 201, body: { ...toEndpointOut(endpoint), secret: endpoint.secret } };
  },
);

export const handler = operation.handler;
