/**
 * The local stand-in of EventBridge Scheduler (scripts/local/adapters/webhook-ladder.ts):
 * at-least-once firing, a failed send to the queue retried on a later pass, the audit log, the soak's
 * lost-rung plant; and a schedule fired twice makes one attempt of its delivery.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDelivery } from '../../functions/data/webhooks.ts';
import { type DeliveryMessage, LOCAL_WEBHOOK_QUEUE } from '../../functions/kernel/ports/webhook-ladder.ts';
import {
  fanOutEvent,
  type MessageResult,
  processDeliveryMessage,
} from '../../functions/services/webhook-deliveries.ts';
import { createEndpoint } from '../../functions/services/webhook-endpoints.ts';
import {
  LOCAL_WEBHOOK_SCHEDULES,
  LocalScheduler,
  type LocalSchedulerOptions,
  LocalWebhookLadder,
  localSchedulerFromEnvironment,
  readSchedulerLog,
} from '../../scripts/local/adapters/webhook-ladder.ts';
import { deliverDue } from '../../scripts/local/queue-poller.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { answer, holding, messageWith, TestLadder } from '../support/webhook-fixtures.ts';

process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';

/** The soak's RETRY_DELAY_SCALE: a 6-hour rung waits 10.8 s, and is a schedule. */
const SCALE = 0.0005;
/**
 * The rung the tests schedule. Its 10.8 s leave the test time to fire it itself, at a time ahead of
 * the clock: a local stack's poller on the shared test table (the e2e files) fires schedules at the
 * real time they fall due, and would take one due sooner.
 */
const SIX_HOURS = 6 * 3_600_000 * SCALE;
/** A firing pass late enough for every schedule the test made. */
const afterTheyFallDue = () => Date.now() + 60_000;

const newToken = () => randomUUID().replaceAll('-', '');

/**
 * A ladder and a Scheduler of the test's own: its own log, and firing only its own schedules (the
 * shared test table's schedules hold other files' messages too).
 */
function setup(scheduler: Omit<LocalSchedulerOptions, 'select' | 'dataDir'> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'local-scheduler-'));
  const tokens: string[] = [];
  const ladder = new LocalWebhookLadder({ delayScale: SCALE, dataDir });
  return {
    dataDir,
    tokens,
    ladder,
    scheduler: new LocalScheduler({ ...scheduler, dataDir, select: (m) => tokens.includes(m.token) }),
    /** Schedules a 6-hour rung of a new message (`laterByMs` after it, to order schedules). */
    async schedule(message = messageWith(newToken()), laterByMs = 0) {
      tokens.push(message.token);
      await ladder.enqueue(message, SIX_HOURS + laterByMs);
      return message;
    },
  };
}

const kindsOf = (dataDir: string) => readSchedulerLog(dataDir).map((e) => `${e.kind} ${e.body.token}`);

describe('the local Scheduler', () => {
  it('fires a due schedule once onto the queue and deletes it, logged as created then fired', async () => {
    // Prepare
    const { dataDir, tokens, scheduler, schedule } = setup();
    const message = await schedule();
    // Act: a pass before it is due, then one after
    const early = await scheduler.fireDue(Date.now() - 60_000);
    const fired = await scheduler.fireDue(afterTheyFallDue());
    // Assess
    expect([early, fired]).toEqual([0, 1]);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, tokens)).toEqual([]);
    const queued = await holding(LOCAL_WEBHOOK_QUEUE, tokens);
    expect(queued.map((m) => JSON.parse(m.body))).toEqual([message]);
    const log = readSchedulerLog(dataDir);
    expect(log.map(({ kind, schedule, body }) => ({ kind, schedule, body }))).toEqual([
      { kind: 'created', schedule: `webhook-${message.token}`, body: message },
      { kind: 'fired', schedule: `webhook-${message.token}`, body: message },
    ]);
    expect(log.every((e) => typeof e.at === 'number' && e.at > 0)).toBe(true);
  });

  it('at its duplicate rate sends a schedule twice: two queue messages with the same body, logged fired-again', async () => {
    // Prepare
    const { dataDir, tokens, scheduler, schedule } = setup({ duplicateRate: 1 });
    const message = await schedule();
    // Act
    await scheduler.fireDue(afterTheyFallDue());
    // Assess
    const queued = await holding(LOCAL_WEBHOOK_QUEUE, tokens);
    expect(queued.map((m) => m.body)).toEqual([JSON.stringify(message), JSON.stringify(message)]);
    expect(new Set(queued.map((m) => m.id)).size).toBe(2);
    expect(kindsOf(dataDir)).toEqual([
      `created ${message.token}`,
      `fired ${message.token}`,
      `fired-again ${message.token}`,
    ]);
  });

  it('keeps a schedule whose send to the queue failed, and a later pass fires it', async () => {
    // Prepare: every send fails on the first pass; none on the next (another process's Scheduler)
    const { dataDir, tokens, scheduler: failing, schedule } = setup({ targetFailureRate: 1 });
    const message = await schedule();
    const recovered = new LocalScheduler({ dataDir, select: (m) => tokens.includes(m.token) });
    // Act
    const firstPass = await failing.fireDue(afterTheyFallDue());
    const scheduledAfterFailure = await holding(LOCAL_WEBHOOK_SCHEDULES, tokens);
    const queuedAfterFailure = await holding(LOCAL_WEBHOOK_QUEUE, tokens);
    const laterPass = await recovered.fireDue(afterTheyFallDue());
    // Assess
    expect(firstPass).toBe(0);
    expect(scheduledAfterFailure).toHaveLength(1);
    expect(queuedAfterFailure).toEqual([]);
    expect(laterPass).toBe(1);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, tokens)).toEqual([]);
    expect(await holding(LOCAL_WEBHOOK_QUEUE, tokens)).toHaveLength(1);
    expect(kindsOf(dataDir)).toEqual([
      `created ${message.token}`,
      `target-failed ${message.token}`,
      `fired ${message.token}`,
    ]);
  });

  it('draws its failures and duplicates from the seed: the same seed, the same firings', async () => {
    // Prepare: two runs of ten schedules each, at rates of one in two, from one seed
    const run = async () => {
      const { dataDir, scheduler, schedule } = setup({ duplicateRate: 0.5, targetFailureRate: 0.5, seed: 7 });
      const order: string[] = [];
      // 10 ms apart: two schedules due in the same millisecond fire in the order of their random names.
      for (let i = 0; i < 10; i++) order.push((await schedule(undefined, i * 10)).token);
      await scheduler.fireDue(afterTheyFallDue());
      // Schedules fire in the order they fall due: compare each event's kind by the schedule's rank.
      return readSchedulerLog(dataDir)
        .filter((e) => e.kind !== 'created')
        .map((e) => `${e.kind} ${order.indexOf(e.body.token)}`)
        .sort();
    };
    // Act
    const [first, second] = [await run(), await run()];
    // Assess: the same firings, with both faults among them
    expect(second).toEqual(first);
    expect(first.some((e) => e.startsWith('target-failed'))).toBe(true);
    expect(first.some((e) => e.startsWith('fired-again'))).toBe(true);
  });

  it('with SOAK_PLANT=lose-scheduled-rung deletes the first due schedule unsent, once, and logs it lost', async () => {
    // Prepare: the Scheduler as the soak's environment describes it
    const { dataDir, tokens, ladder } = setup();
    const scheduler = localSchedulerFromEnvironment(
      { SOAK_PLANT: 'lose-scheduled-rung', DATA_DIR: dataDir },
      (m) => tokens.includes(m.token),
    );
    const first = messageWith(newToken());
    const second = messageWith(newToken());
    tokens.push(first.token, second.token);
    await ladder.enqueue(first, SIX_HOURS);
    await ladder.enqueue(second, SIX_HOURS + 100);
    // Act
    const sent = await scheduler.fireDue(afterTheyFallDue());
    // Assess: the first is gone with nothing queued; the second fired, as does every later one
    expect(sent).toBe(1);
    expect(await holding(LOCAL_WEBHOOK_SCHEDULES, tokens)).toEqual([]);
    expect((await holding(LOCAL_WEBHOOK_QUEUE, tokens)).map((m) => JSON.parse(m.body))).toEqual([second]);
    expect(kindsOf(dataDir)).toEqual([
      `created ${first.token}`,
      `created ${second.token}`,
      `lost ${first.token}`,
      `fired ${second.token}`,
    ]);
  });

  it('reads its rates and seed from the environment, refusing one it cannot use, and ignores other plants', () => {
    expect(() => localSchedulerFromEnvironment({ LOCAL_SCHEDULER_DUPLICATE_RATE: '2' })).toThrow(
      /LOCAL_SCHEDULER_DUPLICATE_RATE/,
    );
    expect(() => localSchedulerFromEnvironment({ LOCAL_SCHEDULER_TARGET_FAILURE_RATE: 'often' })).toThrow(
      /LOCAL_SCHEDULER_TARGET_FAILURE_RATE/,
    );
    expect(() => localSchedulerFromEnvironment({ LOCAL_SCHEDULER_SEED: '1.5' })).toThrow(
      /LOCAL_SCHEDULER_SEED/,
    );
    expect(localSchedulerFromEnvironment({ SOAK_PLANT: 'something-else' })).toBeInstanceOf(LocalScheduler);
  });
});

describe('a schedule fired twice (at-least-once delivery)', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await createTestTenant();
  });

  /** A new pending delivery, and the message its next attempt waits for (the test schedules it as a rung). */
  async function deliveryAwaitingItsRung(): Promise<DeliveryMessage> {
    const fanOut = new TestLadder();
    await createEndpoint({
      tenantId: tenant.tenantId,
      url: 'http://127.0.0.1:9/twice',
      events: ['property.price_changed'],
      via: 'console',
    });
    const id = randomUUID();
    await fanOutEvent(
      tenant.tenantId,
      JSON.stringify({
        id,
        type: 'property.price_changed',
        version: 1,
        created_at: '2026-01-01T00:00:00.000000+00:00',
        tenant: { slug: tenant.slug },
        data: { id: 'x' },
      }),
      { ladder: fanOut },
    );
    return fanOut.queued.at(-1)?.message as DeliveryMessage;
  }

  it('makes one attempt of it, whether its two messages are handled one after the other or side by side', async () => {
    // Prepare: two deliveries, each with its rung scheduled and fired twice
    const { tokens, ladder, scheduler } = setup({ duplicateRate: 1 });
    const oneAfterTheOther = await deliveryAwaitingItsRung();
    const sideBySide = await deliveryAwaitingItsRung();
    for (const message of [oneAfterTheOther, sideBySide]) {
      tokens.push(message.token);
      await ladder.enqueue(message, SIX_HOURS);
    }
    expect(await scheduler.fireDue(afterTheyFallDue())).toBe(2);
    const posts = new Map<string, number>();
    const deps = {
      ladder: new TestLadder(),
      send: async (req: { url: string; messageId: string }) => {
        posts.set(req.messageId, (posts.get(req.messageId) ?? 0) + 1);
        return answer(200);
      },
      delayScale: SCALE,
    };
    const results = new Map<string, MessageResult[]>();
    const handle = async (body: string) => {
      const message = JSON.parse(body) as DeliveryMessage;
      const result = await processDeliveryMessage(message, deps);
      results.set(message.deliveryId, [...(results.get(message.deliveryId) ?? []), result]);
    };
    const worker = (sequential: boolean) => async (event: SQSEvent) => {
      if (sequential) for (const record of event.Records) await handle(record.body);
      else await Promise.all(event.Records.map((record) => handle(record.body)));
      return { batchItemFailures: [] };
    };
    const only = (token: string) => (body: string) => (JSON.parse(body) as DeliveryMessage).token === token;

    // Act: each pair through the local queue as the worker gets it (one batch of two)
    const sequential = await deliverDue(LOCAL_WEBHOOK_QUEUE, worker(true), {
      select: only(oneAfterTheOther.token),
      visibilityTimeoutMs: 60_000,
    });
    const parallel = await deliverDue(LOCAL_WEBHOOK_QUEUE, worker(false), {
      select: only(sideBySide.token),
      visibilityTimeoutMs: 60_000,
    });

    // Assess: both messages handled, one attempt recorded per delivery; the second message of the
    // pair handled after the first is stale and sends nothing.
    expect([sequential, parallel]).toEqual([2, 2]);
    expect(results.get(oneAfterTheOther.deliveryId)).toEqual(['delivered', 'stale']);
    expect(results.get(sideBySide.deliveryId)?.filter((r) => r === 'delivered')).toHaveLength(1);
    for (const message of [oneAfterTheOther, sideBySide]) {
      const delivery = await getDelivery(tenant.tenantId, message.deliveryId);
      expect(delivery?.status).toBe('succeeded');
      expect(delivery?.attemptCount).toBe(1);
      expect(delivery?.attempts).toHaveLength(1);
    }
    const sequentialDelivery = await getDelivery(tenant.tenantId, oneAfterTheOther.deliveryId);
    expect(posts.get(sequentialDelivery?.eventId as string)).toBe(1);
    expect(await holding(LOCAL_WEBHOOK_QUEUE, tokens)).toEqual([]);
  });
});
