import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDelivery } from '../../functions/data/entities/webhook-delivery.ts';
import { getDelivery } from '../../functions/data/webhooks.ts';
import { type DeliveryMessage, setWebhookLadder } from '../../functions/kernel/ports/webhook-ladder.ts';
import { processDeliveryMessage } from '../../functions/services/webhook-deliveries.ts';
import { OVERDUE_AFTER_MS, requeueOverdueDeliveries } from '../../functions/services/webhook-sweeper.ts';
import { handler as sweeperHandler } from '../../functions/workers/webhook-sweeper.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { asFunction, WORKER_ENTRIES } from '../support/aws-operations.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { answer, receiver, TestLadder, WebhookFixture } from '../support/webhook-fixtures.ts';

/**
 * A delivery whose ladder rung was lost (a schedule that never fired, a rung that could not be queued)
 * is found by the sweeper and queued again, on DynamoDB Local with the real delivery code.
 */

process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
});
afterAll(() => bindLocalAdapters());

/**
 * The sweeps a test runs itself are this file's Tenant only: a sweep at a time ahead of the clock
 * would take other files' pending deliveries on the shared test table for lost (and replace their
 * tokens mid-test). The scheduled handler's test below sweeps them all, at the real time.
 */
const ours = () => [tenant.tenantId];

// A sweep reads every Tenant of the shared test table (thousands by the end of a full run) and
// their endpoints: slow on a loaded machine, so a test gets more than the default 30 s.
describe('the overdue-delivery sweeper', { timeout: 120_000 }, () => {
  it('queues again a delivery whose rung was lost, once, and the old message is then stale', async () => {
    // Prepare: a first attempt fails and its rung (due in 5 minutes) cannot be queued.
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    await webhooks.subscribe('property.price_changed');
    const { message: first } = await webhooks.publish('property.price_changed');
    const receiving = receiver(500, 200);
    const deps = { ladder, send: receiving.send, delayScale: 5 };
    ladder.failing = true;
    expect(await processDeliveryMessage(first, deps)).toBe('retry_scheduled');
    ladder.failing = false;
    // The rung was due 20 minutes ago (the time that has passed since, without its message).
    await WebhookDelivery.patch({ tenantId: tenant.tenantId, id: first.deliveryId })
      .set({ nextAttemptAt: new Date(Date.now() - 20 * 60_000).toISOString() })
      .go();
    const lost = await getDelivery(tenant.tenantId, first.deliveryId);

    // Act: a sweep that allows 25 minutes of lateness, then the real one (15), then another.
    const early = await requeueOverdueDeliveries(ladder, 25 * 60_000, Date.now(), ours());
    const queuedEarly = ladder.queued.length;
    await requeueOverdueDeliveries(ladder, OVERDUE_AFTER_MS, Date.now(), ours());
    const swept = ladder.queued.slice(queuedEarly).filter((q) => q.message.deliveryId === first.deliveryId);
    await requeueOverdueDeliveries(ladder, OVERDUE_AFTER_MS, Date.now(), ours());

    // Assess: nothing early; once overdue, one message now with a new token, which delivers it.
    expect(early.endpoints).toBeGreaterThan(0);
    expect(queuedEarly).toBe(1);
    expect(swept).toHaveLength(1);
    expect(swept[0]?.delayMs).toBe(0);
    expect(swept[0]?.message.token).not.toBe(lost?.scheduleToken);
    expect(ladder.queued.filter((q) => q.message.deliveryId === first.deliveryId)).toHaveLength(2);
    expect(await processDeliveryMessage(swept[0]?.message as DeliveryMessage, deps)).toBe('delivered');
    const lateOriginal = { ...first, token: lost?.scheduleToken as string };
    expect(await processDeliveryMessage(lateOriginal, deps)).toBe('stale');
    expect(receiving.posts()).toBe(2);
    expect((await getDelivery(tenant.tenantId, first.deliveryId))?.status).toBe('succeeded');
  });

  it('queues again a new delivery whose first message never arrived (due at its creation)', async () => {
    // Prepare: fan-out creates the delivery, but its first message is lost.
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    await webhooks.subscribe('property.went_live');
    const { message: lostMessage } = await webhooks.publish('property.went_live');
    ladder.queued.length = 0;

    // Act
    await requeueOverdueDeliveries(ladder, OVERDUE_AFTER_MS, Date.now() + OVERDUE_AFTER_MS + 60_000, ours());

    // Assess
    const again = ladder.queued.filter((q) => q.message.deliveryId === lostMessage.deliveryId);
    expect(again).toHaveLength(1);
    expect(again[0]?.message.token).not.toBe(lostMessage.token);
  });

  it('backs off a delivery it already queued again: a backed-up queue is not a lost message, and an attempt resets it', async () => {
    // Prepare: a delivery whose first message waits behind a long queue (the soak's livelock: every
    // sweep replaced the token, so each queued message was stale when the worker reached it).
    const webhooks = new WebhookFixture(tenant);
    const { ladder } = webhooks;
    await webhooks.subscribe('property.updated');
    const { deliveryId } = (await webhooks.publish('property.updated')).message;
    const window = OVERDUE_AFTER_MS;
    const firstSweep = Date.now() + window + 60_000;
    const queuedFor = () => ladder.queued.filter((q) => q.message.deliveryId === deliveryId);

    // Act: sweeps one window after the first sweep, then two windows after it
    await requeueOverdueDeliveries(ladder, window, firstSweep, ours());
    const afterFirst = queuedFor().length;
    await requeueOverdueDeliveries(ladder, window, firstSweep + window + 60_000, ours());
    const afterOneWindow = queuedFor().length;
    await requeueOverdueDeliveries(ladder, window, firstSweep + 2 * window + 60_000, ours());
    const afterTwoWindows = queuedFor().length;
    const latest = queuedFor().at(-1)?.message as DeliveryMessage;
    // The sweeps ran at simulated times ahead of the clock: the message now arrives when it is due.
    await WebhookDelivery.patch({ tenantId: tenant.tenantId, id: deliveryId })
      .set({ nextAttemptAt: new Date(Date.now() - 1_000).toISOString() })
      .go();
    const result = await processDeliveryMessage(latest, {
      ladder,
      send: async () => answer(500),
      delayScale: 1,
    });

    // Assess: queued again once per doubled window; the attempt made from the latest message resets it
    expect([afterFirst, afterOneWindow, afterTwoWindows]).toEqual([2, 2, 3]);
    expect(result).toBe('retry_scheduled');
    expect((await getDelivery(tenant.tenantId, deliveryId))?.sweeps).toBe(0);
  });

  it('runs as its function: the scheduled handler queues the overdue delivery on the bound ladder', async () => {
    // Prepare: a delivery whose first message was lost 20 minutes ago.
    const webhooks = new WebhookFixture(tenant);
    await webhooks.subscribe('property.archived');
    const { deliveryId } = (await webhooks.publish('property.archived')).message;
    await WebhookDelivery.patch({ tenantId: tenant.tenantId, id: deliveryId })
      .set({ nextAttemptAt: new Date(Date.now() - 20 * 60_000).toISOString() })
      .go();
    const bound = new TestLadder();
    setWebhookLadder(bound);
    await afterIndexLag(); // the sweeper finds Tenants, endpoints and deliveries through indexes

    // Act
    const result = await asFunction(WORKER_ENTRIES.webhookSweeper, sweeperHandler)();

    // Assess
    expect(result.requeued).toBeGreaterThanOrEqual(1);
    expect(bound.queued.filter((q) => q.message.deliveryId === deliveryId)).toHaveLength(1);
  });
});
