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
import type { DeliveryMessage } from '../../functions/kernel/ports/webhook-ladder.ts';
import { revokeApiKeyById } from '../../functions/services/api-keys.ts';
import {
  type DeliveryDeps,
  fanOutEvent,
  processDeliveryMessage,
} from '../../functions/services/webhook-deliveries.ts';
import { webhookFanout } from '../../functions/streams/webhook-fanout.ts';
import { handler as deliveryWorkerHandler } from '../../functions/workers/webhook-delivery.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { receiver, WebhookFixture } from '../support/webhook-fixtures.ts';

process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
});

describe('fan-out from the stream', () => {
  it('creates one delivery per enabled endpoint subscribed to the type, queues it, and ignores a replay', async () => {
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const subscribed = await webhooks.subscribe('lead.created');
    await webhooks.subscribe('property.created');
    const event = webhooks.envelope('lead.created');

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
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const { setWebhookLadder } = await import('../../functions/kernel/ports/webhook-ladder.ts');
    setWebhookLadder(ladder);
    const endpoint = await webhooks.subscribe('inquiry.created');
    const event = webhooks.envelope('inquiry.created');
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
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const endpoint = await webhooks.subscribe('lead.updated');
    const { message: first } = await webhooks.publish('lead.updated');
    const deps = { ladder, send: receiver(500, null, 200).send, delayScale: 0 };

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
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    await webhooks.subscribe('lead.archived');
    await webhooks.publish('lead.archived');
    const deps = { ladder, send: receiver(500).send, delayScale: 1 };
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
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const apiKey = await tenant.newKey(['webhooks:manage', 'leads:read']);
    const endpoint = await webhooks.subscribe('lead.assigned', { apiKeyId: apiKey.id });
    const { message } = await webhooks.publish('lead.assigned');
    // Revoking the key that subscribed it disables the endpoint.
    const revoked = await revokeApiKeyById(tenant.tenantId, apiKey.id);
    expect(revoked.webhooksDisabled).toBe(1);
    expect((await getEndpoint(tenant.tenantId, endpoint.id))?.disabledReason).toBe('key_revoked');
    const receiving = receiver(200);
    const result = await processDeliveryMessage(message, { ladder, send: receiving.send, delayScale: 1 });
    expect(result).toBe('endpoint_disabled');
    expect(receiving.posts()).toBe(0);
    const delivery = await getDelivery(tenant.tenantId, message.deliveryId);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempts).toEqual([]);
  });
});

describe('a delivery record is bounded', () => {
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
    const webhooks = new WebhookFixture(own);
    await webhooks.subscribe('lead.scored');
    const createdAt = Math.floor(Date.now() / 1000);
    const { message: first } = await webhooks.publish('lead.scored');
    const deps = { ladder: webhooks.ladder, send: verbose, delayScale: 0 };
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
    const webhooks = new WebhookFixture(own);
    await webhooks.subscribe('lead.status_changed');
    const { message: first } = await webhooks.publish('lead.status_changed');
    const deps = { ladder: webhooks.ladder, send: receiver(200).send, delayScale: 0 };
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
    const webhooks = new WebhookFixture(own);
    const { ladder } = webhooks;
    const apiKey = await own.newKey(['webhooks:manage', 'leads:read'], {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const ofKey = await webhooks.subscribe('lead.created', { apiKeyId: apiKey.id });
    const consoleEndpoint = await webhooks.subscribe('lead.created');
    await expire(own.tenantId, apiKey.id);
    // Act
    const { count: fannedOut } = await webhooks.publish('lead.created');
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
    const webhooks = new WebhookFixture(own);
    const apiKey = await own.newKey(['webhooks:manage', 'leads:read'], {
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const endpoint = await webhooks.subscribe('lead.created', { apiKeyId: apiKey.id });
    const { message } = await webhooks.publish('lead.created');
    await expire(own.tenantId, apiKey.id);
    const receiving = receiver(200);
    // Act
    const result = await processDeliveryMessage(message, {
      ladder: webhooks.ladder,
      send: receiving.send,
      delayScale: 1,
    });
    // Assess
    expect(result).toBe('endpoint_disabled');
    expect(receiving.posts()).toBe(0);
    expect((await getEndpoint(own.tenantId, endpoint.id))?.disabledReason).toBe('key_expired');
  });

  it('subscribing with a key revoked a moment ago is refused even though the caller passed authentication', async () => {
    // Prepare
    const own = await createTestTenant();
    const apiKey = await own.newKey(['webhooks:manage', 'leads:read']);
    await revokeApiKeyById(own.tenantId, apiKey.id);
    // Act
    const attempt = new WebhookFixture(own).subscribe('lead.created', { apiKeyId: apiKey.id });
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
      const webhooks = new WebhookFixture(tenant);
      await webhooks.subscribe('activity.completed', { url: `http://127.0.0.1:${port}/hook` });
      const { event, message } = await webhooks.publish('activity.completed');
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
