/**
 * The local stand-in of the SQS event sources (scripts/local/queue-poller.ts), alone: visibility
 * timeouts and receive counts, and concurrent batches of the row's size.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { visibilityTimeoutSeconds, workerFor } from '../../functions/workers.ts';
import { visibleAtKey } from '../../scripts/local/adapters/local-queue.ts';
import {
  deliverDue,
  functionTimeoutMsOf,
  localClaimsLost,
  startQueuePoller,
  visibilityTimeoutMsOf,
} from '../../scripts/local/queue-poller.ts';
import { eventually } from '../support/eventually.ts';
import { unique } from '../support/factories.ts';

async function messagesOf(queue: string) {
  const { data } = await LocalQueueMessage.query.byVisibility({ queue }).go({ pages: 'all' });
  return data;
}

/** A promise and the function that resolves it: a test waits until its handler says so. */
function signal(): { fired: Promise<void>; fire: () => void } {
  let fire: () => void = () => undefined;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

async function put(queue: string, count: number) {
  for (let i = 0; i < count; i++) {
    await LocalQueueMessage.create({
      queue: queue as 'ai',
      visibleAt: visibleAtKey(Date.now() - 1),
      id: unique('m'),
      body: JSON.stringify({ i }),
      receiveCount: 0,
    }).go();
  }
}

describe('the local queue event source: the visibility timeout of the worker table', () => {
  it("takes each queue's visibility timeout from its worker row (six times the worker's timeout)", () => {
    expect(visibilityTimeoutMsOf('webhooks')).toBe(
      visibilityTimeoutSeconds(workerFor('webhookDelivery')) * 1000,
    );
    expect(visibilityTimeoutMsOf('ai')).toBe(visibilityTimeoutSeconds(workerFor('aiWorker')) * 1000);
  });

  it('keeps a failed message hidden until its visibility timeout ends, not a few seconds', async () => {
    // Prepare
    const queue = unique('q') as 'ai';
    await put(queue, 1);
    const before = Date.now();
    // Act: the handler reports it failed
    await deliverDue(
      queue,
      async (event) => ({ batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) }),
      { visibilityTimeoutMs: 120_000 },
    );
    // Assess: one copy, received once, visible again only after the timeout
    const [left, ...more] = await messagesOf(queue);
    expect(more).toEqual([]);
    expect(left?.receiveCount).toBe(1);
    expect(Number(left?.visibleAt)).toBeGreaterThanOrEqual(before + 120_000);
  });

  it('counts a receive when the message is handed out, so a handler that dies still used one', async () => {
    // Prepare
    const queue = unique('q') as 'ai';
    await put(queue, 1);
    let hiddenWhileRunning: { receiveCount: number }[] = [];
    // Act: what the table holds while the handler runs is what a crash at that moment leaves
    await deliverDue(queue, async (event: SQSEvent) => {
      hiddenWhileRunning = await messagesOf(queue);
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    // Assess
    expect(hiddenWhileRunning.map((m) => m.receiveCount)).toEqual([1]);
  });
});

describe('the local queue event source: the function timeout of the worker table', () => {
  it("takes each queue's function timeout from its worker row", () => {
    expect(functionTimeoutMsOf('webhooks')).toBe(workerFor('webhookDelivery').timeoutSeconds * 1000);
    expect(functionTimeoutMsOf('images')).toBe(workerFor('imageImport').timeoutSeconds * 1000);
  });

  it('ends an invocation that never returns at the timeout: the lane goes on, the batch failed and comes back', async () => {
    // Prepare
    const queue = unique('q') as 'ai';
    await put(queue, 2);
    // Act: a handler hung on a call that never answers (as Lambda ends it, the poller must)
    const delivered = await deliverDue(queue, () => new Promise(() => {}), {
      functionTimeoutMs: 200,
      visibilityTimeoutMs: 400,
    });
    // Assess: both were handed out, both still there (failed, not deleted), each received once
    expect(delivered).toBe(2);
    expect((await messagesOf(queue)).map((m) => m.receiveCount)).toEqual([1, 1]);
    // ...and received again once the visibility timeout ends, by a handler that returns
    const handled: string[] = [];
    await eventually(
      async () => {
        await deliverDue(queue, async (event) => {
          handled.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
          return { batchItemFailures: [] };
        });
        return handled;
      },
      (seen) => seen.length >= 2,
    );
    expect(handled).toEqual(['2', '2']);
    expect(await messagesOf(queue)).toEqual([]);
  });
});

describe('the local queue event source: maxConcurrency batches at once, of the row batch size', () => {
  it('runs up to maxConcurrency batches side by side, each of at most batchSize messages', async () => {
    // Prepare: 6 messages; a handler that holds each batch until 3 are in flight (or a generous wait)
    const queue = unique('q') as 'ai';
    await put(queue, 6);
    let inFlight = 0;
    let most = 0;
    const sizes: number[] = [];
    const { fired: three, fire: release } = signal();
    let handled = 0;
    const { fired: allHandled, fire: done } = signal();
    // Act
    const poller = startQueuePoller({
      queue,
      batchSize: 2,
      maxConcurrency: 3,
      intervalMs: 50,
      handler: async (event) => {
        sizes.push(event.Records.length);
        inFlight++;
        most = Math.max(most, inFlight);
        if (inFlight === 3) release();
        await Promise.race([three, new Promise((resolve) => setTimeout(resolve, 15_000))]);
        inFlight--;
        handled += event.Records.length;
        if (handled >= 6) done();
        return { batchItemFailures: [] };
      },
    });
    await allHandled;
    poller.stop();
    // Assess
    expect(most).toBe(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(6);
  });
});

describe('the local queue event source: the lanes of one poller take turns at claiming', () => {
  it('hands many lanes draining a backlog each message once, with no claim lost to another lane', async () => {
    // Prepare
    const queue = unique('q') as 'ai';
    await put(queue, 40);
    const lostBefore = localClaimsLost();
    const seen: string[] = [];
    const { fired: allHandled, fire: done } = signal();
    // Act: ten lanes, woken together by the first batch, drain forty messages
    const poller = startQueuePoller({
      queue,
      batchSize: 2,
      maxConcurrency: 10,
      intervalMs: 50,
      handler: async (event) => {
        seen.push(...event.Records.map((r) => r.body));
        if (seen.length >= 40) done();
        return { batchItemFailures: [] };
      },
    });
    await allHandled;
    poller.stop();
    // Assess: each once, and no lane claimed what another had read first
    expect(new Set(seen).size).toBe(40);
    expect(seen).toHaveLength(40);
    expect(localClaimsLost() - lostBefore).toBe(0);
  });
});

describe('the local queue event source: two pollers side by side', () => {
  it('hands a poller that lost the race for the oldest messages the next ones, not an empty batch', async () => {
    // Prepare: 4 due messages; two receives of 2 at once read the same oldest two
    const queue = unique('q') as 'ai';
    await put(queue, 4);
    const received: string[][] = [];
    const handler = async (event: SQSEvent) => {
      received.push(event.Records.map((r) => r.messageId));
      return { batchItemFailures: [] };
    };
    // Act
    const counts = await Promise.all([
      deliverDue(queue, handler, { limit: 2 }),
      deliverDue(queue, handler, { limit: 2 }),
    ]);
    // Assess: each got a batch of 2, no message twice
    expect(counts).toEqual([2, 2]);
    expect(new Set(received.flat()).size).toBe(4);
  });
});

describe('the local queue event source: an idle queue costs one query an interval', () => {
  it('polls an empty queue with one lane at a time, not maxConcurrency of them', async () => {
    // Prepare: count the queries of this queue in flight at once
    const queue = unique('q') as 'ai';
    let inFlight = 0;
    let most = 0;
    let queries = 0;
    const name = `count-${queue}`;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'QueryCommand' || !JSON.stringify(args.input).includes(queue)) {
          return next(args);
        }
        queries += 1;
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          return await next(args);
        } finally {
          inFlight -= 1;
        }
      },
      { step: 'initialize', name },
    );
    try {
      // Act: five lanes on an empty queue, for ten polls
      const poller = startQueuePoller({
        queue,
        maxConcurrency: 5,
        intervalMs: 10,
        handler: async () => ({ batchItemFailures: [] }),
      });
      await eventually(
        async () => queries,
        (count) => count >= 10,
      );
      poller.stop();
      // Assess: the lanes that would run side by side wait for work instead of polling
      expect(queries).toBeGreaterThanOrEqual(10);
      expect(most).toBe(1);
    } finally {
      dynamo().middlewareStack.remove(name);
    }
  });
});
