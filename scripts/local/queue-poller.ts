import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LocalQueueMessage } from '../../functions/data/entities/local-queue-message.ts';
import { isConditionalFailure } from '../../functions/data/errors.ts';
import type { QueueName } from '../../functions/platform/ports/queue.ts';
import { visibleAtKey } from './adapters/local-queue.ts';

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/** How long a message that failed waits before it is delivered again, and how often. */
const REDELIVERY_DELAY_MS = 5_000;
const MAX_RECEIVES = 5;

/**
 * Delivers the messages that are due, in the SQS event shape the Lambda worker expects. A message
 * is claimed by deleting it (conditionally), so two pollers never deliver it twice; a reported
 * failure puts it back with a delay, like SQS's visibility timeout, until MAX_RECEIVES.
 */
export async function deliverDue(queue: QueueName, handler: SqsHandler, limit = 10): Promise<number> {
  const { data } = await LocalQueueMessage.query
    .byVisibility({ queue })
    .lte({ visibleAt: visibleAtKey(Date.now()), id: '\uffff' })
    .go({ limit });
  const claimed = [];
  for (const message of data) {
    try {
      await LocalQueueMessage.delete({ queue, visibleAt: message.visibleAt, id: message.id })
        .where(({ id }, { exists }) => exists(id))
        .go();
      claimed.push(message);
    } catch (error) {
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
    if (!failed.has(message.id) || message.receiveCount + 1 >= MAX_RECEIVES) continue;
    await LocalQueueMessage.create({
      queue,
      visibleAt: visibleAtKey(Date.now() + REDELIVERY_DELAY_MS),
      id: message.id,
      body: message.body,
      receiveCount: message.receiveCount + 1,
    }).go();
  }
  return claimed.length;
}

/** Polls a local queue until stopped (the local stack's stand-in for the SQS event source). */
export function startQueuePoller(options: {
  queue: QueueName;
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
