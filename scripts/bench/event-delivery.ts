/**
 * The events section of the bench (issue 10): events per second through the stream consumer, and
 * webhook latency from an API write to the receiver's arrival, on the local stack's pieces run
 * in-process: the API server, the stream poller feeding the real consumer, and the delivery worker on
 * the table-backed queue (as `npm start` runs them). Every functions/ module is imported
 * dynamically: main.ts sets the environment (localHandlerEnv) and binds the local adapters first.
 */
import type { EventThroughput } from './event-log.ts';
import type { WebhookLatency } from './webhooks.ts';

export interface EventsSection {
  throughput: EventThroughput;
  webhook: WebhookLatency;
}

export async function measureEventsSection(options: {
  /** DynamoDB Local itself (the stream API), not the bench's recorder in front of it. */
  dynamoEndpoint: string;
  tableName: string;
  tenantId: string;
  samples: number;
  log: (line: string) => void;
}): Promise<EventsSection> {
  const { measureEventThroughput } = await import('./event-log.ts');
  const { measureWebhookLatency } = await import('./webhooks.ts');
  options.log('  events: 400 Lead status moves through the consumer (batches of 100)…');
  const throughput = await measureEventThroughput({ records: 400, batchSize: 100 });
  options.log(`  events: ${throughput.eventsPerSecond} events/s`);

  // A receiver on 127.0.0.1 may be subscribed only with the local switch (refused inside Lambda).
  process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
  const { issueApiKey } = await import('../../functions/services/api-keys.ts');
  const { secret } = await issueApiKey({
    tenantId: options.tenantId,
    name: 'bench-webhooks',
    scopes: ['webhooks:manage', 'leads:read'],
  });
  const { startApiServer } = await import('../local/server.ts');
  const { startStreamPoller } = await import('../local/stream-poller.ts');
  const { startQueuePoller } = await import('../local/queue-poller.ts');
  const { handler: consumer } = await import('../../functions/streams/consumer.ts');
  const { handler: deliveryWorker } = await import('../../functions/workers/webhook-delivery.ts');
  const { server, url } = await startApiServer({ port: 0 });
  const stream = startStreamPoller({
    endpoint: options.dynamoEndpoint,
    tableName: options.tableName,
    handler: consumer,
    intervalMs: 50,
  });
  const deliveries = startQueuePoller({ queue: 'webhooks', handler: deliveryWorker, intervalMs: 50 });
  try {
    await stream.ready;
    options.log(`  webhooks: ${options.samples} test deliveries, API call → receiver…`);
    const webhook = await measureWebhookLatency({ apiUrl: url, key: secret, samples: options.samples });
    options.log(`  webhooks: p50 ${webhook.p50Ms} ms, p99 ${webhook.p99Ms} ms`);
    return { throughput, webhook };
  } finally {
    stream.stop();
    deliveries.stop();
    server.closeAllConnections();
    server.close();
  }
}
