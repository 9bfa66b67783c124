import { pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { EndpointOut, toEndpointOut, WebhookPageQuery } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listEndpoints } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'listWebhooks',
  {
    query: WebhookPageQuery,
    responses: {
      200: {
        description:
          'A page of the endpoints this same key subscribed and of those registered in the console (not those of other keys), oldest first by (created_at, id), not by updated_at: an endpoint changed while paging (enabled, disabled, rotated) keeps its place, so a full pass skips nothing and repeats nothing; one subscribed during the pass comes at its end',
        schema: pageOf(EndpointOut),
      },
      422: { description: 'Invalid limit or cursor', schema: ValidationErrorOut },
    },
  },
  async ({ query, caller }) => ({
    status: 200,
    body: await listEndpoints(caller.tenant.tenantId, caller.apiKey.id, query, toEndpointOut),
  }),
);

export const handler = operation.handler;
