import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { isConditionalFailure } from '../../functions/data/errors.ts';
import type { QueueName } from '../../functions/kernel/ports/queue.ts';
import { workers } from '../../functions/workers.ts';
import { visibleAtKey } from './adapters/local-queue.ts';

/** A local queue's name: the service's queues, and the webhook delivery queue. */
type LocalQueueName = QueueName | 'webhooks';

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/** How long a message that failed waits before it is delivered again, and how often. */
const REDELIVERY_DELAY_MS = 5_000;

/** Receives before a message moves to the dead-letter queue: the worker table's row of the queue. */
function maxReceiveCountOf(queue: LocalQueueName): number {
  const row = workers.find((w) => w.trigger.kind === 'queue' && w.trigger.queue === queue);
  return row?.trigger.kind === 'queue' ? row.trigger.maxReceiveCount : 5;
}

/**
 * The local dead-letter queue of `queue` (the redrive policy's target in AWS): messages that failed
 * `maxReceiveCount` receives wait there, with their receive count, for an operator to look at.
 */
export function deadLetterQueueOf(queue: LocalQueueName): string {
  return `${queue}-dlq`;
}
/**
 * Like SQS's visibility timeout: a claimed message stays in the table, invisible this long, until
 * its handler finishes. A process stopped mid-handler therefore loses nothing: the message shows
 * again after the lease (at-least-once, as in AWS).
 */
const LEASE_MS = 60_000;

/**
 * Delivers the messages that are due, in the SQS event shape the Lambda worker expects. A message
 * is claimed by writing a leased copy (visible after LEASE_MS) and deleting the original
 * conditionally, so two pollers never deliver it twice and a crash mid-handler does not lose it;
 * a reported failure puts it back with a delay, and after the row's maxReceiveCount receives on
 * the queue's local dead-letter queue.
 */
export async function deliverDue(queue: LocalQueueName, handler: SqsHandler, limit = 10): Promise<number> {
  const { data } = await LocalQueueMessage.query
    .byVisibility({ queue })
    .lte({ visibleAt: visibleAtKey(Date.now()), id: '\uffff' })
    .go({ limit });
  const claimed: ((typeof data)[number] & { leasedUntil: string })[] = [];
  for (const message of data) {
    const leasedUntil = visibleAtKey(Date.now() + LEASE_MS);
    await LocalQueueMessage.create({ ...message, visibleAt: leasedUntil }).go();
    try {
      await LocalQueueMessage.delete({ queue, visibleAt: message.visibleAt, id: message.id })
        .where(({ id }, { exists }) => exists(id))
        .go();
      claimed.push({ ...message, leasedUntil });
    } catch (error) {
      await LocalQueueMessage.delete({ queue, visibleAt: leasedUntil, id: message.id }).go();
      if (!isConditionalFailure(error)) throw error;
    }
  }
  if (claimed.length === 0) return 0;
  const event: SQSEvent = {
    Records: claimed.map((m) => ({
      messageId: m.id,
      receiptHandle: m.id,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount + 1),
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
  try {
    const result = await handler(event);
    failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  } catch {
    failed = new Set(claimed.map((m) => m.id));
  }
  for (const message of claimed) {
    const receives = message.receiveCount + 1;
    if (failed.has(message.id)) {
      // The retry (or the dead-letter copy) is written before the leased copy goes: a crash between
      // the two leaves the message twice (at least once), never not at all.
      const redriven = receives >= maxReceiveCountOf(queue);
      await LocalQueueMessage.create({
        queue: redriven ? deadLetterQueueOf(queue) : queue,
        visibleAt: visibleAtKey(Date.now() + (redriven ? 0 : REDELIVERY_DELAY_MS)),
        id: message.id,
        body: message.body,
        receiveCount: receives,
      }).go();
    }
    await LocalQueueMessage.delete({ queue, visibleAt: message.leasedUntil, id: message.id }).go();
  }
  return claimed.length;
}

/** Polls a local queue until stopped (the local stack's stand-in for the SQS event source). */
export function startQueuePoller(options: {
  queue: LocalQueueName;
  handler: SqsHandler;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): { stop: () => void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    if (stopped) return;
    try {
      while (!stopped && (await deliverDue(options.queue, options.handler)) > 0) {
        // keep draining while messages are due
      }
    } catch (error) {
      options.onError?.(error);
    }
    if (!stopped) timer = setTimeout(loop, options.intervalMs ?? 500);
  };
  void loop();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
