/**
 * Webhook latency, API write → receiver arrival, on a running local stack (`npm start` with
 * `LOCAL_ALLOW_PRIVATE_URLS=1`, so that a receiver on 127.0.0.1 may be subscribed). Each sample is
 * one `POST /v1/webhooks/{id}/test`: the write commits the ping delivery, the stream consumer
 * queues it, the delivery worker signs and POSTs it; the clock stops when the receiver has the body.
 * The lead wires it into `npm run bench` (and, once the events log lands, an API change → event →
 * delivery path measured the same way).
 */
import { createServer } from 'node:http';
import { percentile, round } from './stats.ts';

export interface WebhookLatencyOptions {
  /** The local API, e.g. http://127.0.0.1:3000. */
  apiUrl: string;
  /** A secret key with webhooks:manage (and leads:read, to subscribe to lead.created). */
  key: string;
  /** @default 30 */
  samples?: number;
  /** Give up on one sample after this long. @default 30_000 */
  timeoutMs?: number;
}

export interface WebhookLatency {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Sends `samples` pings one after another and times each from the API call to the receiver. */
export async function measureWebhookLatency(options: WebhookLatencyOptions): Promise<WebhookLatency> {
  const samples = options.samples ?? 30;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let arrived: ((at: number) => void) | undefined;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived?.(performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const { port } = receiver.address() as { port: number };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(options.apiUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${options.key}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  try {
    const endpoint = await call('POST', '/v1/webhooks/subscriptions', {
      url: `http://127.0.0.1:${port}/bench`,
      events: ['lead.created'],
    });
    const durations: number[] = [];
    for (let i = 0; i < samples; i++) {
      const arrival = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no delivery within the timeout')), timeoutMs);
        arrived = (at) => {
          clearTimeout(timer);
          resolve(at);
        };
      });
      const started = performance.now();
      await call('POST', `/v1/webhooks/${endpoint.id}/test`);
      durations.push((await arrival) - started);
    }
    await call('DELETE', `/v1/webhooks/subscriptions/${endpoint.id}`);
    const sorted = [...durations].sort((a, b) => a - b);
    return {
      samples,
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      maxMs: round(sorted.at(-1) ?? 0),
    };
  } finally {
    receiver.closeAllConnections();
    receiver.close();
  }
}
