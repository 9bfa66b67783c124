import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReactionReceipt } from '../../functions/data/entities/reaction-receipt.ts';
import { countEndpointFailure, getDelivery, getEndpoint } from '../../functions/data/webhooks.ts';
import { type Email, setEmails } from '../../functions/kernel/ports/email.ts';
import type { WebhookLadderPort } from '../../functions/kernel/ports/webhook-ladder.ts';
import { createAgent } from '../../functions/services/agents.ts';
import {
  FAILURE_COUNT_WINDOW_MS,
  fanOutEvent,
  processDeliveryMessage,
} from '../../functions/services/webhook-deliveries.ts';
import { webhookFanout } from '../../functions/streams/webhook-fanout.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { answer, receiver, WebhookFixture } from '../support/webhook-fixtures.ts';

/**
 * The webhook pipeline's failure rules, each against the real delivery code on DynamoDB Local; the
 * receiver and the ladder are stand-ins so that a test can make them fail at a chosen moment.
 */

// The receiver stand-ins live on 127.0.0.1 (the local switch; the deployed worker refuses it).
process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
});
afterAll(() => bindLocalAdapters());

describe('the attempt is recorded before the next rung is queued', () => {
  it('a rung that cannot be queued leaves the attempt recorded, and the message run again does not POST again', async () => {
    // Prepare: one delivery queued; the receiver fails; then the queue goes down.
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    await webhooks.subscribe('lead.updated');
    const { message } = await webhooks.publish('lead.updated');
    const receiving = receiver(500);
    const deps = { ladder, send: receiving.send, delayScale: 1 };
    ladder.failing = true;

    // Act: the message is handled, then handled again (SQS's redelivery if the first run had failed).
    await processDeliveryMessage(message, deps).catch(() => undefined);
    const again = await processDeliveryMessage(message, deps).catch(() => 'threw');

    // Assess: one POST, recorded; the delivery stays pending with its next attempt due (the sweeper's cue).
    expect(receiving.posts()).toBe(1);
    expect(again).toBe('stale');
    const delivery = await getDelivery(tenant.tenantId, message.deliveryId);
    expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([500]);
    expect(delivery?.status).toBe('pending');
    expect(delivery?.nextAttemptAt).toBeDefined();
  });
});

describe('a success resets the failure count whatever was read before', () => {
  it('a failure counted while the successful POST was in flight is reset by the success', async () => {
    // Prepare: an endpoint with no failures, read as such by the worker before it POSTs.
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const endpoint = await webhooks.subscribe('lead.archived');
    const { message } = await webhooks.publish('lead.archived');

    // Act: another delivery's failure is counted during this one's POST, which succeeds.
    const result = await processDeliveryMessage(message, {
      ladder,
      send: async () => {
        await countEndpointFailure(tenant.tenantId, endpoint.id, FAILURE_COUNT_WINDOW_MS);
        return answer(200);
      },
      delayScale: 0,
    });

    // Assess: the run of failures ended with the success.
    expect(result).toBe('delivered');
    expect((await getEndpoint(tenant.tenantId, endpoint.id))?.consecutiveFailures).toBe(0);
  });
});

describe('one receiver blip does not disable the endpoint', () => {
  it('20 deliveries failing at the same moment count as one failure; the endpoint stays enabled', async () => {
    // Prepare: 20 events fanned out to one endpoint.
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const endpoint = await webhooks.subscribe('lead.status_changed');
    for (let i = 0; i < 20; i++) await webhooks.publish('lead.status_changed');
    expect(ladder.queued).toHaveLength(20);

    // Act: all 20 are attempted side by side while the receiver is down.
    const deps = { ladder, send: async () => answer(503), delayScale: 1 };
    const results = await Promise.all(ladder.queued.map((q) => processDeliveryMessage(q.message, deps)));

    // Assess: every attempt was made and recorded, but the endpoint counts one failure and stays on.
    expect(results).toEqual(Array(20).fill('retry_scheduled'));
    const after = await getEndpoint(tenant.tenantId, endpoint.id);
    expect(after?.enabled).toBe(true);
    expect(after?.consecutiveFailures).toBe(1);
  });

  it('failures a window apart count one by one up to 20; one inside the last window does not count', async () => {
    // Prepare: an endpoint, and a clock that moves a window forward per failure.
    const endpoint = await new WebhookFixture(tenant).subscribe('lead.created');
    const start = Date.now();

    // Act: 20 failures counted a window and a second apart, and one more inside the last window.
    const counts: (number | undefined)[] = [];
    for (let i = 0; i < 20; i++) {
      const at = new Date(start + i * (FAILURE_COUNT_WINDOW_MS + 1000));
      counts.push(await countEndpointFailure(tenant.tenantId, endpoint.id, FAILURE_COUNT_WINDOW_MS, at));
    }
    const inWindow = new Date(start + 19 * (FAILURE_COUNT_WINDOW_MS + 1000) + 5000);
    const blip = await countEndpointFailure(tenant.tenantId, endpoint.id, FAILURE_COUNT_WINDOW_MS, inWindow);

    // Assess
    expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(blip).toBeUndefined();
  });
});

describe('the disable notice goes through an outbox, once per Admin', () => {
  it('an Admin whose email fails does not stop the others; the retry emails only that Admin', async () => {
    // Prepare: three Admins (and one Agent who is not); the second Admin's first email fails.
    const admins = await Promise.all(
      ['A', 'B', 'C'].map((n) =>
        createAgent({
          tenantId: tenant.tenantId,
          name: `Admin ${n}`,
          email: `${unique('adm')}@example.com`,
          isAdmin: true,
        }),
      ),
    );
    await createAgent({ tenantId: tenant.tenantId, name: 'Agent', email: `${unique('agt')}@example.com` });
    const sent: Email[] = [];
    let failFor: string | undefined = admins[1]?.email;
    setEmails({
      send: async (email) => {
        if (email.to === failFor) {
          failFor = undefined;
          throw new Error('SES is throttling (test)');
        }
        sent.push(email);
      },
    });
    const endpointId = randomUUID();
    const oldImage = {
      tenantId: tenant.tenantId,
      id: endpointId,
      url: 'https://r.example/h',
      enabled: true,
      consecutiveFailures: 19,
    };
    const newImage = {
      ...oldImage,
      enabled: false,
      disabledReason: 'failures',
      disabledAt: new Date().toISOString(),
      consecutiveFailures: 20,
    };
    const change = { entity: 'webhookEndpoint', kind: 'MODIFY', oldImage, newImage, eventId: 'e1' } as const;

    // Act: the stream consumer's webhook processor sees the disabling (it fails, then is retried twice).
    const first = await webhookFanout(change as never).then(
      () => 'ok',
      () => 'failed',
    );
    await webhookFanout(change as never);
    await webhookFanout(change as never);

    // Assess: the record failed once (so it is retried), every Admin got exactly one notice, nobody else.
    expect(first).toBe('failed');
    const adminEmails = admins.map((a) => a.email).sort();
    expect(sent.map((e) => e.to).sort()).toEqual(adminEmails);
    expect(sent[0]?.text).toContain('The last 20 delivery attempts in a row failed.');
    const receipt = await ReactionReceipt.get({
      tenantId: tenant.tenantId,
      receiptKey: `endpoint-disabled#${endpointId}#${newImage.disabledAt}#${admins[1]?.id}`,
    }).go();
    expect(receipt.data).not.toBeNull();
  });

  it('the delivery worker disabling an endpoint (410) sends nothing itself: the change is the outbox', async () => {
    // Prepare
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    const endpoint = await webhooks.subscribe('inquiry.created');
    const { message } = await webhooks.publish('inquiry.created');
    const sent: Email[] = [];
    setEmails({ send: async (email) => void sent.push(email) });

    // Act
    const result = await processDeliveryMessage(message, {
      ladder,
      send: async () => answer(410),
      delayScale: 0,
    });

    // Assess
    expect(result).toBe('failed');
    expect(await getEndpoint(tenant.tenantId, endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'gone',
    });
    expect(sent).toEqual([]);
  });
});

describe('fan-out to many endpoints is one round, not one per endpoint', () => {
  it('queues the deliveries of all endpoints side by side', async () => {
    // Prepare: 8 endpoints on one type; a ladder that holds each enqueue until all 8 are in flight
    // (or, when they come one by one, until a generous wait has passed) and records the most at once.
    const own = await createTestTenant();
    const webhooks = new WebhookFixture(own);
    for (let i = 0; i < 8; i++) await webhooks.subscribe('activity.completed');
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const allIn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ladder: WebhookLadderPort = {
      enqueue: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        if (inFlight === 8) release();
        await Promise.race([allIn, new Promise((resolve) => setTimeout(resolve, 3000))]);
        inFlight--;
      },
    };

    // Act
    const count = await fanOutEvent(own.tenantId, webhooks.envelope('activity.completed').json, { ladder });

    // Assess
    expect(count).toBe(8);
    expect(most).toBe(8);
  });
});
