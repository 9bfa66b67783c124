import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { isConditionalFailure } from '../../functions/data/errors.ts';
import type { QueueName } from '../../functions/kernel/ports/queue.ts';
import { LOCAL_WEBHOOK_QUEUE } from '../../functions/kernel/ports/webhook-ladder.ts';
import { visibilityTimeoutSeconds, workers } from '../../functions/workers.ts';
import { visibleAtKey } from './adapters/local-queue.ts';
import { fireDueSchedules } from './adapters/webhook-ladder.ts';

/** A local queue's name: the service's queues, and the webhook delivery queue. */
type LocalQueueName = QueueName | 'webhooks';

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/** The worker table's row fed by `queue` (none for a queue of a test's own). */
function rowOf(queue: LocalQueueName) {
  const row = workers.find((w) => w.trigger.kind === 'queue' && w.trigger.queue === queue);
  return row?.trigger.kind === 'queue' ? { row, trigger: row.trigger } : undefined;
}

/** Receives before a message moves to the dead-letter queue: the worker table's row of the queue. */
function maxReceiveCountOf(queue: LocalQueueName): number {
  return rowOf(queue)?.trigger.maxReceiveCount ?? 5;
}

/**
 * The queue's visibility timeout, as the async stack sets it from the worker table (six times the
 * worker's timeout): how long a received message stays hidden, whether its handler is still running,
 * crashed, or reported it failed. 60 s for a queue no row feeds (a test's own).
 */
export function visibilityTimeoutMsOf(queue: LocalQueueName): number {
  const found = rowOf(queue);
  return found ? visibilityTimeoutSeconds(found.row) * 1000 : 60_000;
}

/**
 * The worker's timeout (the worker table's row; 60 s for a queue no row feeds): Lambda ends an
 * invocation that runs longer, and its whole batch has failed.
 */
export function functionTimeoutMsOf(queue: LocalQueueName): number {
  return (rowOf(queue)?.row.timeoutSeconds ?? 60) * 1000;
}

/**
 * The local dead-letter queue of `queue` (the redrive policy's target in AWS): messages that failed
 * `maxReceiveCount` receives wait there, with their receive count, for an operator to look at.
 */
export function deadLetterQueueOf(queue: LocalQueueName): string {
  return `${queue}-dlq`;
}

/** Per queue, the end of the last claim this process started: the next one waits for it. */
const claimTurns = new Map<string, Promise<void>>();
async function inClaimTurn(queue: string, claim: () => Promise<void>): Promise<void> {
  const turn = (claimTurns.get(queue) ?? Promise.resolve()).then(claim);
  claimTurns.set(
    queue,
    turn.catch(() => undefined),
  );
  return turn;
}

/** Claims this process lost to another receiver of the same messages (tests). */
let claimsLost = 0;
export function localClaimsLost(): number {
  return claimsLost;
}

export interface DeliverOptions {
  /** Messages per invocation. @default the row's batch size (10 for a queue no row feeds) */
  limit?: number;
  /** @default visibilityTimeoutMsOf(queue) */
  visibilityTimeoutMs?: number;
  /** @default functionTimeoutMsOf(queue) */
  functionTimeoutMs?: number;
  /**
   * Delivers only the due messages whose body this picks, oldest first (the others stay as they
   * are). For a test on the shared test table, whose queues also hold other test files' messages:
   * without it, a test's message waits behind all of theirs.
   */
  select?: (body: string) => boolean;
}

/**
 * Delivers the messages that are due, in the SQS event shape the Lambda worker expects, as SQS and
 * its event source do:
 * - a message is received by writing a copy hidden for the visibility timeout, with its receive
 *   counted, and deleting the visible one conditionally: two pollers never deliver it twice, and a
 *   process stopped mid-handler loses nothing (the copy shows again, one receive more);
 * - a message the handler reported failed (or all of them, if it threw or outran the function's
 *   timeout) stays hidden until its visibility timeout ends, then is received again; a handled one
 *   is deleted. A handler that never returns (a request that hangs) frees its lane at the timeout, as
 *   Lambda ends the invocation: without the bound one hung call stopped a queue's deliveries for good
 *   (found by the soak: the webhook queue's lanes waited on the one that hung);
 * - a message received `maxReceiveCount` times that fails again, or is due again after that many,
 *   moves to the queue's local dead-letter queue (written before the original goes: never lost).
 */
export async function deliverDue(
  queue: LocalQueueName,
  handler: SqsHandler,
  options: DeliverOptions = {},
): Promise<number> {
  const limit = options.limit ?? rowOf(queue)?.trigger.batchSize ?? 10;
  const visibilityMs = options.visibilityTimeoutMs ?? visibilityTimeoutMsOf(queue);
  const maxReceives = maxReceiveCountOf(queue);
  const select = options.select;
  const dueNow = async (count: number) => {
    const due = LocalQueueMessage.query
      .byVisibility({ queue })
      .lte({ visibleAt: visibleAtKey(Date.now()), id: '\uffff' });
    return select
      ? (await due.go({ pages: 'all' })).data.filter((m) => select(m.body)).slice(0, count)
      : (await due.go({ limit: count })).data;
  };
  type Due = Awaited<ReturnType<typeof dueNow>>[number];
  const claimed: (Due & { leasedUntil: string })[] = [];
  /** Claims what it can of `data` into `claimed`; answers how many another poller took first. */
  const claimDue = async (data: Due[]): Promise<number> => {
    let lost = 0;
    for (const message of data) {
      if (message.receiveCount >= maxReceives) {
        // Received its last time and not deleted (a crash): the redrive policy moves it on this receive.
        await LocalQueueMessage.create({
          ...message,
          queue: deadLetterQueueOf(queue),
          visibleAt: visibleAtKey(Date.now()),
        }).go();
        await LocalQueueMessage.delete({ queue, visibleAt: message.visibleAt, id: message.id }).go();
        continue;
      }
      const leasedUntil = visibleAtKey(Date.now() + visibilityMs);
      await LocalQueueMessage.create({
        ...message,
        visibleAt: leasedUntil,
        receiveCount: message.receiveCount + 1,
      }).go();
      try {
        await LocalQueueMessage.delete({ queue, visibleAt: message.visibleAt, id: message.id })
          .where(({ id }, { exists }) => exists(id))
          .go();
        claimed.push({ ...message, receiveCount: message.receiveCount + 1, leasedUntil });
      } catch (error) {
        await LocalQueueMessage.delete({ queue, visibleAt: leasedUntil, id: message.id }).go();
        if (!isConditionalFailure(error)) throw error;
        lost += 1;
      }
    }
    return lost;
  };
  // SQS hands each receive its own messages. Here the lanes of this process take turns at claiming
  // (their handlers still run side by side): twenty webhook lanes claiming at once all read the same
  // oldest messages and fought over them, a dozen writes per message handed out, until DynamoDB
  // Local saturated and deliveries all but stopped (the seed-3 soak). Pollers in other processes may
  // still take what a lane read: it then reads again for the rest of its batch, so that it does not
  // go back to sleep with messages still due.
  await inClaimTurn(queue, async () => {
    for (let read = 0; read < 5 && claimed.length < limit; read++) {
      const lost = await claimDue(await dueNow(limit - claimed.length));
      claimsLost += lost;
      if (lost === 0) break;
    }
  });
  if (claimed.length === 0) return 0;
  const event: SQSEvent = {
    Records: claimed.map((m) => ({
      messageId: m.id,
      receiptHandle: m.id,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(Number(m.visibleAt)),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${queue}`,
      awsRegion: 'local',
    })),
  };
  let failed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.functionTimeoutMs ?? functionTimeoutMsOf(queue));
  });
  try {
    const result = await Promise.race([handler(event), timedOut]);
    failed =
      result === 'timeout'
        ? new Set(claimed.map((m) => m.id))
        : new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch {
    failed = new Set(claimed.map((m) => m.id));
  } finally {
    clearTimeout(timer);
  }
  for (const message of claimed) {
    if (failed.has(message.id)) {
      // Stays hidden until its visibility timeout ends (SQS), unless that was its last receive.
      if (message.receiveCount < maxReceives) continue;
      await LocalQueueMessage.create({
        queue: deadLetterQueueOf(queue),
        visibleAt: visibleAtKey(Date.now()),
        id: message.id,
        body: message.body,
        receiveCount: message.receiveCount,
      }).go();
    }
    await LocalQueueMessage.delete({ queue, visibleAt: message.leasedUntil, id: message.id }).go();
  }
  return claimed.length;
}

/**
 * Polls a local queue until stopped (the local stack's stand-in for the SQS event source): up to the
 * row's `maxConcurrency` batches at once, as the event source's maximum concurrency caps them, each
 * of the row's batch size.
 */
export function startQueuePoller(options: {
  queue: LocalQueueName;
  handler: SqsHandler;
  intervalMs?: number;
  /** @default the row's batch size */
  batchSize?: number;
  /** @default the row's maxConcurrency (1 for a queue no row feeds) */
  maxConcurrency?: number;
  visibilityTimeoutMs?: number;
  functionTimeoutMs?: number;
  onError?: (error: unknown) => void;
}): { stop: () => void } {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const concurrency = options.maxConcurrency ?? rowOf(options.queue)?.trigger.maxConcurrency ?? 1;
  const deliver: DeliverOptions = {
    ...(options.batchSize === undefined ? {} : { limit: options.batchSize }),
    ...(options.visibilityTimeoutMs === undefined
      ? {}
      : { visibilityTimeoutMs: options.visibilityTimeoutMs }),
    ...(options.functionTimeoutMs === undefined ? {} : { functionTimeoutMs: options.functionTimeoutMs }),
  };
  // Each lane is one invocation at a time; lanes run side by side, as concurrent invocations do. An
  // empty queue is polled by the first lane alone: the others wait until it claims a batch, then drain
  // the queue beside it and wait again once they find nothing. Every lane polling an empty queue cost
  // `maxConcurrency` queries an interval (400 a second for the webhook queue): an idle `npm start`
  // kept most of a core busy.
  let waiting: (() => void)[] = [];
  const wakeWaiting = () => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  const handler: SqsHandler = (event) => {
    wakeWaiting();
    return options.handler(event);
  };
  // What each lane is doing since when: a lane busy far longer than one invocation can take is
  // reported (stderr), so that a stalled queue names where it waits instead of going quiet.
  const busy = new Map<number, { step: string; since: number }>();
  const stuckAfterMs = 2 * (options.functionTimeoutMs ?? functionTimeoutMsOf(options.queue)) + 60_000;
  const watchdog = setInterval(() => {
    const now = Date.now();
    for (const [n, { step, since }] of busy) {
      if (now - since > stuckAfterMs) {
        process.stderr.write(
          `queue ${options.queue}: lane ${n} in ${step} for ${Math.round((now - since) / 1000)} s\n`,
        );
      }
    }
  }, 30_000);
  watchdog.unref();
  let lanes = 0;
  const lane = async (first: boolean, n = lanes++) => {
    if (stopped) return;
    let delivered = 0;
    try {
      // The ladder's schedules target the delivery queue: the local Scheduler fires due ones first.
      if (options.queue === LOCAL_WEBHOOK_QUEUE) {
        busy.set(n, { step: 'firing schedules', since: Date.now() });
        await fireDueSchedules();
      }
      for (;;) {
        busy.set(n, { step: 'a batch', since: Date.now() });
        const batch = stopped ? 0 : await deliverDue(options.queue, handler, deliver);
        if (batch === 0) break; // keep draining while messages are due
        delivered += batch;
      }
    } catch (error) {
      options.onError?.(error);
    } finally {
      busy.delete(n);
    }
    if (stopped) return;
    if (!first && delivered === 0) {
      waiting.push(() => void lane(false, n));
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      void lane(first, n);
    }, options.intervalMs ?? 500);
    timers.add(timer);
  };
  void lane(true);
  for (let i = 1; i < concurrency; i++) waiting.push(() => void lane(false));
  return {
    stop: () => {
      stopped = true;
      clearInterval(watchdog);
      waiting = [];
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
