import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import type { WebhookEndpointRecord } from '../../functions/data/webhooks.ts';
import type { WebhookResponse } from '../../functions/kernel/net/webhook-sender.ts';
import type { DeliveryMessage, WebhookLadderPort } from '../../functions/kernel/ports/webhook-ladder.ts';
import { type DeliveryDeps, fanOutEvent } from '../../functions/services/webhook-deliveries.ts';
import { createEndpoint } from '../../functions/services/webhook-endpoints.ts';

/**
 * The retry ladder as a list of what was queued, with its delay; `failing` makes every enqueue throw
 * (SQS or Scheduler down). The one stand-in for the ladder the webhook tests use.
 */
export class TestLadder implements WebhookLadderPort {
  readonly queued: { message: DeliveryMessage; delayMs: number }[] = [];
  failing = false;
  async enqueue(message: DeliveryMessage, delayMs: number) {
    if (this.failing) throw new Error('The ladder is unavailable (test)');
    this.queued.push({ message, delayMs });
  }
}

/** A receiver's answer with `status`, as the sender reports it; `null`: nothing listens (connection refused). */
export function answer(status: number | null): WebhookResponse {
  return status === null
    ? { statusCode: null, error: 'ECONNREFUSED: connect ECONNREFUSED', durationMs: 3, responseBody: null }
    : { statusCode: status, error: null, durationMs: 5, responseBody: `status ${status}` };
}

/**
 * A receiver stand-in for a delivery's `send`: it answers `statuses` in turn, the last one from then
 * on (`null`: connection refused), and counts the POSTs it was sent.
 */
export function receiver(...statuses: (number | null)[]): {
  send: DeliveryDeps['send'];
  posts: () => number;
} {
  let posts = 0;
  return {
    send: async () => answer(statuses[Math.min(posts++, statuses.length - 1)] ?? null),
    posts: () => posts,
  };
}

/**
 * A Tenant's webhooks in an int test, on DynamoDB Local through the real services: endpoints it
 * subscribes (on 127.0.0.1's discard port, where nothing listens: a test's `send` answers instead, and
 * the file sets LOCAL_ALLOW_PRIVATE_URLS), and events fanned out to them onto `ladder`.
 */
export class WebhookFixture {
  readonly ladder = new TestLadder();
  readonly #tenant: { tenantId: string; slug: string };

  constructor(tenant: { tenantId: string; slug: string }) {
    this.#tenant = tenant;
  }

  /** An endpoint subscribed to `type`: from the console, or by the API key `apiKeyId` (which then governs it). */
  subscribe(type: string, options: { url?: string; apiKeyId?: string } = {}): Promise<WebhookEndpointRecord> {
    return createEndpoint({
      tenantId: this.#tenant.tenantId,
      url: options.url ?? 'http://127.0.0.1:9/hook',
      events: [type],
      ...(options.apiKeyId ? { via: 'api', apiKey: { id: options.apiKeyId } } : { via: 'console' }),
    });
  }

  /** A new event of `type` as the stream consumer reads it from the table: its id and its envelope. */
  envelope(type: string): { id: string; json: string } {
    const id = randomUUID();
    const json = JSON.stringify({
      id,
      type,
      version: 1,
      created_at: '2026-01-01T00:00:00.000000+00:00',
      tenant: { slug: this.#tenant.slug },
      data: { id: 'x' },
    });
    return { id, json };
  }

  /**
   * Fans a new event of `type` out as the stream consumer does: the event, how many endpoints it
   * went to, and the first message it queued. Nothing queued is an error here: a test of a fan-out
   * that reaches no endpoint calls fanOutEvent itself.
   */
  async publish(
    type: string,
  ): Promise<{ event: { id: string; json: string }; count: number; message: DeliveryMessage }> {
    const event = this.envelope(type);
    const before = this.ladder.queued.length;
    const count = await fanOutEvent(this.#tenant.tenantId, event.json, { ladder: this.ladder });
    const message = this.ladder.queued[before]?.message;
    if (!message) throw new Error(`The fan-out of ${type} queued nothing`);
    return { event, count, message };
  }
}

/** A ladder message carrying `token`, of a delivery of its own. */
export const messageWith = (token: string): DeliveryMessage => ({
  tenantId: 't',
  endpointId: 'e',
  deliveryId: randomUUID(),
  trigger: 'auto',
  token,
});

/** The messages of a local queue (or the Scheduler stand-in's schedules) carrying one of `tokens`. */
export async function holding(queue: string, tokens: readonly string[]) {
  const { data } = await LocalQueueMessage.query.byVisibility({ queue }).go({ pages: 'all' });
  return data.filter((m) => tokens.includes((JSON.parse(m.body) as DeliveryMessage).token));
}

/** A delivery as a receiver got it: the raw body and the request headers. */
export interface ReceivedDelivery {
  body: string;
  headers: Record<string, string>;
}

export interface WebhookReceiver {
  /** The URL to subscribe: `http://127.0.0.1:<port>/hooks` (the file sets LOCAL_ALLOW_PRIVATE_URLS). */
  url: string;
  /** Each delivery received, by its webhook-id (a redelivery of a message replaces the earlier one). */
  received: Map<string, ReceivedDelivery>;
  close: () => void;
}

/**
 * A webhook receiver on loopback, as an integrator runs one behind the real delivery worker: it
 * answers every request 204 and keeps what it got. Nothing is checked here: a test verifies the
 * deliveries it waits for ({@link verifiedDelivery}).
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received = new Map<string, ReceivedDelivery>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.set(String(req.headers['webhook-id']), {
        body,
        headers: req.headers as Record<string, string>,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => server.close(),
  };
}

/**
 * The payload of a delivery, once its Standard Webhooks signature verifies with the endpoint's
 * `secret` (webhook-id, webhook-timestamp and webhook-signature, as an integrator's library checks
 * them); throws when it does not.
 */
export function verifiedDelivery(secret: string, delivery: ReceivedDelivery): unknown {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers['webhook-id'] ?? '',
    'webhook-timestamp': delivery.headers['webhook-timestamp'] ?? '',
    'webhook-signature': delivery.headers['webhook-signature'] ?? '',
  });
}
