import type { RouteDefinition } from '../../pipeline/route.ts';

/**
 * Rows of the route table (functions/routes.ts) for webhook endpoints and their deliveries. Every
 * operation on an endpoint is the subscribing key's alone (services/webhook-endpoints.ts).
 */
export const webhookRoutes = [
  {
    operationId: 'createWebhookSubscription',
    method: 'POST',
    path: '/v1/webhooks/subscriptions',
    scope: 'webhooks:manage',
    entry: 'webhooks/create-webhook-subscription.ts',
    summary:
      'Subscribe an endpoint to event types (needs the read scopes of those events); returns its secret once',
    tag: 'Webhooks',
  },
  {
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/v1/webhooks',
    scope: 'webhooks:manage',
    entry: 'webhooks/list-webhooks.ts',
    summary: 'List the webhook endpoints this key subscribed, oldest first (no secrets)',
    tag: 'Webhooks',
  },
  {
    operationId: 'getWebhook',
    method: 'GET',
    path: '/v1/webhooks/{endpoint_id}',
    scope: 'webhooks:manage',
    entry: 'webhooks/get-webhook.ts',
    summary: 'Read one webhook endpoint this key subscribed (no secret)',
    tag: 'Webhooks',
  },
  {
    operationId: 'deleteWebhookSubscription',
    method: 'DELETE',
    path: '/v1/webhooks/subscriptions/{endpoint_id}',
    scope: 'webhooks:manage',
    entry: 'webhooks/delete-webhook-subscription.ts',
    summary: 'Unsubscribe an endpoint this same key subscribed (kept as unsubscribed, never deleted)',
    tag: 'Webhooks',
  },
  {
    operationId: 'updateWebhook',
    method: 'PATCH',
    path: '/v1/webhooks/{endpoint_id}',
    scope: 'webhooks:manage',
    entry: 'webhooks/update-webhook.ts',
    summary:
      'Enable or disable an endpoint; enabling resets its failure count (failed deliveries stay failed: see recover)',
    tag: 'Webhooks',
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhooks/{endpoint_id}/deliveries',
    scope: 'webhooks:manage',
    entry: 'webhooks/list-webhook-deliveries.ts',
    summary: "An endpoint's deliveries, newest first by (created_at, id), each with every attempt",
    tag: 'Webhooks',
  },
  {
    operationId: 'redeliverWebhookDelivery',
    method: 'POST',
    path: '/v1/webhooks/{endpoint_id}/deliveries/{delivery_id}:redeliver',
    scope: 'webhooks:manage',
    entry: 'webhooks/redeliver-webhook-delivery.ts',
    summary: 'Send a delivery again: same webhook-id, fresh timestamp and signature (logged as manual)',
    tag: 'Webhooks',
  },
  {
    operationId: 'recoverWebhookDeliveries',
    method: 'POST',
    path: '/v1/webhooks/{endpoint_id}/recover',
    scope: 'webhooks:manage',
    entry: 'webhooks/recover-webhook-deliveries.ts',
    summary: "Send again the endpoint's failed deliveries since a time (within the 30-day event history)",
    tag: 'Webhooks',
  },
  {
    operationId: 'testWebhook',
    method: 'POST',
    path: '/v1/webhooks/{endpoint_id}/test',
    scope: 'webhooks:manage',
    entry: 'webhooks/test-webhook.ts',
    summary: 'Send a ping event to the endpoint (logged as test)',
    tag: 'Webhooks',
  },
  {
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/v1/webhooks/{endpoint_id}/rotate-secret',
    scope: 'webhooks:manage',
    entry: 'webhooks/rotate-webhook-secret.ts',
    summary: 'Issue a new signing secret; the old one stops verifying at once',
    tag: 'Webhooks',
  },
] as const satisfies readonly RouteDefinition[];
