import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { toDeliveryOut } from '../../functions/contract/webhooks.ts';
import { findApiKeyById } from '../../functions/data/api-keys.ts';
import { ApiKey } from '../../functions/data/entities/api-key.ts';
import { WebhookDelivery } from '../../functions/data/entities/webhook-delivery.ts';
import { getDelivery, getEndpoint, type WebhookDeliveryRecord } from '../../functions/data/webhooks.ts';
import { UnauthorizedError } from '../../functions/kernel/errors.ts';
import type { WebhookResponse } from '../../functions/kernel/net/webhook-sender.ts';
import type { DeliveryMessage, WebhookLadderPort } from '../../functions/kernel/ports/webhook-ladder.ts';
import { revokeApiKeyById } from '../../functions/services/api-keys.ts';
import {
  type DeliveryDeps,
  fanOutEvent,
  processDeliveryMessage,
} from '../../functions/services/webhook-deliveries.ts';
import { createEndpoint } from '../../functions/services/webhook-endpoints.ts';
import { webhookFanout } from '../../functions/streams/webhook-fanout.ts';
import { handler as deliveryWorkerHandler } from '../../functions/workers/webhook-delivery.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';

process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';

/** The ladder as a list: what was queued, with its delay. */
class RecordingLadder implements WebhookLadderPort {
  readonly queued: { message: DeliveryMessage; delayMs: number }[] = [];
  async enqueue(message: DeliveryMessage, delayMs: number) {
    this.queued.push({ message, delayMs });
  }
}

function answers(...statuses: (number | null)[]): DeliveryDeps['send'] {
  return async () => {
    const status = statuses.length > 1 ? statuses.shift() : statuses[0];
    const response: WebhookResponse =
      status === null || status === undefined
        ? { statusCode: null, error: 'ECONNREFUSED: connect ECONNREFUSED', durationMs: 3, responseBody: null }
        : { statusCode: status, error: null, durationMs: 5, responseBody: `status ${status}` };
    return response;
  };
}

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
});

function envelope(type: string) {
  const id = randomUUID();
  return {
    id,
    json: JSON.stringify({
      id,
      type,
      version: 1,
      created_at: '2026-01-01T00:00:00.000000+00:00',
      tenant: { slug: tenant.slug },
      data: { id: 'x' },
    }),
  };
}

describe('fan-out from the stream', () => {
  it('creates one delivery per enabled endpoint subscribed to the type, queues it, and ignores a replay', async () => {
    const ladder = new RecordingLadder();
    const subscribed = await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/a',
      events: ['lead.created'],
      via: 'console',
    });
    await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/b',
      events: ['property.created'],
      via: 'console',
    });
    const event = envelope('lead.created');

    expect(await fanOutEvent(tenant.tenantId, event.json, { ladder })).toBe(1);
    expect(ladder.queued).toHaveLength(1);
    const message = ladder.queued[0]?.message as DeliveryMessage;
    expect(message).toMatchObject({ tenantId: tenant.tenantId, endpointId: subscribed.id, trigger: 'auto' });
    const delivery = await getDelivery(tenant.tenantId, message.deliveryId);
    expect(delivery).toMatchObject({
      eventId: event.id,
      eventType: 'lead.created',
      status: 'pending',
      payload: event.json,
    });

    // A replayed stream batch: the same delivery id, queued again with the same token (harmless).
    await fanOutEvent(tenant.tenantId, event.json, { ladder });
    expect(ladder.queued[1]?.message).toEqual(message);
  });

  it('is reached through the consumer processor with a hand-built table change', async () => {
    const ladder = new RecordingLadder();
    const { setWebhookLadder } = await import('../../functions/kernel/ports/webhook-ladder.ts');
    setWebhookLadder(ladder);
    const endpoint = await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/c',
      events: ['inquiry.created'],
      via: 'console',
    });
    const event = envelope('inquiry.created');
    await webhookFanout({
      eventId: 'stream-record-1',
      kind: 'INSERT',
      entity: 'event',
      oldImage: undefined,
      newImage: {
        tenantId: tenant.tenantId,
        id: event.id,
        type: 'inquiry.created',
        createdAt: 'x',
        envelope: event.json,
      },
    });
    expect(ladder.queued.map((q) => q.message.endpointId)).toEqual([endpoint.id]);
    const { bindLocalAdapters } = await import('../../scripts/local/adapters/index.ts');
    bindLocalAdapters();
  });
});

describe('processing a delivery message', () => {
  it('climbs the ladder on failures, drops stale and duplicate messages, and settles on success', async () => {
    const ladder = new RecordingLadder();
    const endpoint = await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/d',
      events: ['lead.updated'],
      via: 'console',
    });
    const event = envelope('lead.updated');
    await fanOutEvent(tenant.tenantId, event.json, { ladder });
    const first = ladder.queued[0]?.message as DeliveryMessage;
    const deps = { ladder, send: answers(500, null, 200), delayScale: 0 };

    expect(await processDeliveryMessage(first, deps)).toBe('retry_scheduled');
    expect(ladder.queued[1]?.delayMs).toBe(0); // 60 s × scale 0
    // The first message again (an SQS duplicate): its token is spent.
    expect(await processDeliveryMessage(first, deps)).toBe('stale');
    expect(await processDeliveryMessage(ladder.queued[1]?.message as DeliveryMessage, deps)).toBe(
      'retry_scheduled',
    );
    expect(await processDeliveryMessage(ladder.queued[2]?.message as DeliveryMessage, deps)).toBe(
      'delivered',
    );

    const delivery = await getDelivery(tenant.tenantId, first.deliveryId);
    expect(delivery?.status).toBe('succeeded');
    expect(delivery?.nextAttemptAt).toBeUndefined();
    expect(delivery?.attempts.map((a) => [a.number, a.statusCode ?? null, a.error ?? null])).toEqual([
      [1, 500, null],
      [2, null, 'ECONNREFUSED: connect ECONNREFUSED'],
      [3, 200, null],
    ]);
    expect((await getEndpoint(tenant.tenantId, endpoint.id))?.consecutiveFailures).toBe(0);
  });

  it('queues the real ladder delays, and gives up after the 9th attempt', async () => {
    const ladder = new RecordingLadder();
    await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/e',
      events: ['lead.archived'],
      via: 'console',
    });
    await fanOutEvent(tenant.tenantId, envelope('lead.archived').json, { ladder });
    const deps = { ladder, send: answers(500), delayScale: 1 };
    const results = [];
    for (let i = 0; i < 9; i++) {
      const message = ladder.queued.at(-1)?.message as DeliveryMessage;
      // Each retry is due later; make it due now as the clock would.
      const { WebhookDelivery } = await import('../../functions/data/entities/webhook-delivery.ts');
      await WebhookDelivery.patch({ tenantId: message.tenantId, id: message.deliveryId })
        .set({ nextAttemptAt: new Date().toISOString() })
        .go();
      results.push(await processDeliveryMessage(message, deps));
    }
    expect(results).toEqual([...Array(8).fill('retry_scheduled'), 'failed']);
    expect(ladder.queued.slice(1).map((q) => q.delayMs / 60_000)).toEqual([
      1, 5, 30, 120, 360, 720, 1440, 1440,
    ]);
  });

  it('marks a delivery failed, without sending, when it falls due on a disabled endpoint', async () => {
    const ladder = new RecordingLadder();
    const apiKey = await tenant.newKey(['webhooks:manage', 'leads:read']);
    const endpoint = await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/f',
      events: ['lead.assigned'],
      via: 'api',
      apiKey: { id: apiKey.id },
    });
    await fanOutEvent(tenant.tenantId, envelope('lead.assigned').json, { ladder });
    // Revoking the key that subscribed it disables the endpoint (§5).
    const revoked = await revokeApiKeyById(tenant.tenantId, apiKey.id);
    expect(revoked.webhooksDisabled).toBe(1);
    expect((await getEndpoint(tenant.tenantId, endpoint.id))?.disabledReason).toBe('key_revoked');
    let sent = 0;
    const result = await processDeliveryMessage(ladder.queued[0]?.message as DeliveryMessage, {
      ladder,
      send: async () => {
        sent++;
        return { statusCode: 200, error: null, durationMs: 1, responseBody: '' };
      },
      delayScale: 1,
    });
    expect(result).toBe('endpoint_disabled');
    expect(sent).toBe(0);
    const delivery = await getDelivery(tenant.tenantId, ladder.queued[0]?.message.deliveryId as string);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempts).toEqual([]);
  });
});

describe('a delivery record is bounded (issue 26 item 4)', () => {
  /** A receiver that answers 200 with a 10 KB body, in multi-byte characters (3 bytes each). */
  const verbose: DeliveryDeps['send'] = async () => ({
    statusCode: 200,
    error: null,
    durationMs: 2,
    responseBody: '€'.repeat(3_500),
  });
  const redeliver = (first: DeliveryMessage, n: number): DeliveryMessage => ({
    ...first,
    trigger: 'manual',
    token: `redeliver-${n}-${randomUUID()}`,
  });

  it('keeps the last 20 attempts with the count of all, 4 KB of answer each, and expires 90 days after creation', async () => {
    // Prepare
    const own = await createTestTenant();
    const ladder = new RecordingLadder();
    await createEndpoint({
      tenantId: own.tenantId,
      url: 'http://127.0.0.1:9/bounded',
      events: ['lead.scored'],
      via: 'console',
    });
    const createdAt = Math.floor(Date.now() / 1000);
    await fanOutEvent(own.tenantId, envelope('lead.scored').json, { ladder });
    const first = ladder.queued[0]?.message as DeliveryMessage;
    const deps = { ladder, send: verbose, delayScale: 0 };
    // Act: 25 redeliveries by hand.
    for (let n = 1; n <= 25; n++)
      expect(await processDeliveryMessage(redeliver(first, n), deps)).toBe('delivered');
    // Assess
    const { data: item } = await WebhookDelivery.get({ tenantId: own.tenantId, id: first.deliveryId }).go({
      consistent: true,
    });
    expect(item?.attemptCount).toBe(25);
    expect(item?.attempts.map((a) => a.number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    for (const attempt of item?.attempts ?? []) {
      expect(Buffer.byteLength(attempt.responseBody ?? '', 'utf8')).toBeLessThanOrEqual(4096);
      expect(attempt.responseBody).toMatch(/^€+$/);
    }
    expect(Buffer.byteLength(JSON.stringify(item), 'utf8')).toBeLessThan(120_000);
    const ninetyDays = 90 * 86_400;
    expect(item?.ttl).toBeGreaterThanOrEqual(createdAt + ninetyDays);
    expect(item?.ttl).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + ninetyDays);
    expect(toDeliveryOut(item as WebhookDeliveryRecord)).toMatchObject({ attempt_count: 25 });
  });

  it('records an automatic attempt and a redelivery made at the same time, numbered 1 and 2', async () => {
    // Prepare
    const own = await createTestTenant();
    const ladder = new RecordingLadder();
    await createEndpoint({
      tenantId: own.tenantId,
      url: 'http://127.0.0.1:9/both',
      events: ['lead.status_changed'],
      via: 'console',
    });
    await fanOutEvent(own.tenantId, envelope('lead.status_changed').json, { ladder });
    const first = ladder.queued[0]?.message as DeliveryMessage;
    const deps = { ladder, send: answers(200), delayScale: 0 };
    // Act
    const results = await Promise.all([
      processDeliveryMessage(first, deps),
      processDeliveryMessage(redeliver(first, 1), deps),
    ]);
    // Assess
    expect(results).toEqual(['delivered', 'delivered']);
    const { data: item } = await WebhookDelivery.get({ tenantId: own.tenantId, id: first.deliveryId }).go({
      consistent: true,
    });
    expect(item?.attemptCount).toBe(2);
    expect(item?.attempts.map((a) => [a.number, a.trigger]).sort()).toEqual([
      [1, expect.any(String)],
      [2, expect.any(String)],
    ]);
    expect(new Set(item?.attempts.map((a) => a.trigger))).toEqual(new Set(['auto', 'manual']));
  });
});

describe('the subscribing key governs its endpoints', () => {
  /** Moves a key's expiry into the past, as time passing would (expiry writes nothing). */
  async function expire(tenantId: string, keyId: string) {
    const key = await findApiKeyById(tenantId, keyId);
    await ApiKey.patch({ keyHash: key?.keyHash as string })
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .go();
  }

  it('fan-out skips the endpoint of an expired key and disables it (key_expired); a console endpoint still gets the event', async () => {
    // Prepare
    const own = await createTestTenant();
    const ladder = new RecordingLadder();
    const apiKey = await own.newKey(['webhooks:manage', 'leads:read'], {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const ofKey = await createEndpoint({
      tenantId: own.tenantId,
      url: 'http://127.0.0.1:9/key',
      events: ['lead.created'],
      via: 'api',
      apiKey: { id: apiKey.id },
    });
    const consoleEndpoint = await createEndpoint({
      tenantId: own.tenantId,
      url: 'http://127.0.0.1:9/console',
      events: ['lead.created'],
      via: 'console',
    });
    await expire(own.tenantId, apiKey.id);
    // Act
    const fannedOut = await fanOutEvent(own.tenantId, envelope('lead.created').json, { ladder });
    // Assess
    expect(fannedOut).toBe(1);
    expect(ladder.queued.map((q) => q.message.endpointId)).toEqual([consoleEndpoint.id]);
    expect(await getEndpoint(own.tenantId, ofKey.id)).toMatchObject({
      enabled: false,
      disabledReason: 'key_expired',
    });
  });

  it('a retry queued before the key expired is not sent: the delivery fails and the endpoint is disabled', async () => {
    // Prepare
    const own = await createTestTenant();
    const ladder = new RecordingLadder();
    const apiKey = await own.newKey(['webhooks:manage', 'leads:read'], {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const endpoint = await createEndpoint({
      tenantId: own.tenantId,
      url: 'http://127.0.0.1:9/retry',
      events: ['lead.created'],
      via: 'api',
      apiKey: { id: apiKey.id },
    });
    await fanOutEvent(own.tenantId, envelope('lead.created').json, { ladder });
    await expire(own.tenantId, apiKey.id);
    let sent = 0;
    // Act
    const result = await processDeliveryMessage(ladder.queued[0]?.message as DeliveryMessage, {
      ladder,
      send: async () => {
        sent++;
        return { statusCode: 200, error: null, durationMs: 1, responseBody: '' };
      },
      delayScale: 1,
    });
    // Assess
    expect(result).toBe('endpoint_disabled');
    expect(sent).toBe(0);
    expect((await getEndpoint(own.tenantId, endpoint.id))?.disabledReason).toBe('key_expired');
  });

  it('subscribing with a key revoked a moment ago is refused even though the caller passed authentication', async () => {
    // Prepare
    const own = await createTestTenant();
    const apiKey = await own.newKey(['webhooks:manage', 'leads:read']);
    await revokeApiKeyById(own.tenantId, apiKey.id);
    // Act
    const attempt = createEndpoint({
      tenantId: own.tenantId,
      url: 'http://127.0.0.1:9/late',
      events: ['lead.created'],
      via: 'api',
      apiKey: { id: apiKey.id },
    });
    // Assess
    await expect(attempt).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe('the delivery worker', () => {
  it('sends a queued delivery to the receiver and records the success (run as its function)', async () => {
    // Prepare: a receiver on loopback, an endpoint subscribed to it, a delivery queued by the fan-out.
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(String(req.headers['webhook-id']));
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const { port } = receiver.address() as AddressInfo;
    try {
      await createEndpoint({
        tenantId: tenant.tenantId,
        url: `http://127.0.0.1:${port}/hook`,
        events: ['activity.completed'],
        via: 'console',
      });
      const ladder = new RecordingLadder();
      const event = envelope('activity.completed');
      await fanOutEvent(tenant.tenantId, event.json, { ladder });
      const message = ladder.queued[0]?.message as DeliveryMessage;
      const worker = asFunction(WORKER_ENTRIES.webhookDelivery, deliveryWorkerHandler);
      const sqsEvent = {
        Records: [{ messageId: 'm-1', body: JSON.stringify(message) }],
      } as unknown as SQSEvent;
      // Act
      const result = await worker(sqsEvent);
      // Assess
      expect(result.batchItemFailures).toEqual([]);
      expect(received).toEqual([event.id]);
      expect((await getDelivery(tenant.tenantId, message.deliveryId))?.status).toBe('succeeded');
    } finally {
      receiver.close();
    }
  });
});
