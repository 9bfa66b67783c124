import { ErrorOut, pageOf, ValidationErrorOut } from '../../contract/shared.ts';
import { DeliveryOut, EndpointPath, toDeliveryOut, WebhookPageQuery } from '../../contract/webhooks.ts';
import { defineOperation } from '../../pipeline/operation.ts';
import { listDeliveries } from '../../services/webhook-endpoints.ts';

export const operation = defineOperation(
  'listWebhookDeliveries',
  {
    params: EndpointPath,
    query: WebhookPageQuery,
    responses: {
      200: {
        description:
          'A page of deliveries with every attempt, newest first by (created_at, id), not by updated_at (a delivery log reads from the latest): a delivery attempted while paging keeps its place, so a full pass skips nothing and repeats nothing; deliveries made after the pass began are not in it (start again without a cursor to see them)',
        schema: pageOf(DeliveryOut),
      },
      404: {
        description: 'No endpoint with this id that this same key subscribed (console endpoints included)',
        schema: ErrorOut,
      },
      422: { description: 'Invalid endpoint_id, limit or cursor', schema: ValidationErrorOut },
    },
  },
  async ({ params, query, caller }) => ({
    status: 200,
    body: await listDeliveries(
      caller.tenant.tenantId,
      params.endpoint_id,
      caller.apiKey.id,
      query,
      toDeliveryOut,
    ),
  }),
);

export const handler = operation.handler;
