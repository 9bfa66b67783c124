import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';

/**
 * Every SQS queue of the service, built one way: SQS-managed encryption, TLS only, and for a queue a
 * function consumes, a dead-letter queue. The queues are created in the caller's scope under the ids
 * it gives (not inside a construct of their own), so that their logical ids, and with them the queues
 * of a stage already deployed, stay what they were: a new id is a new queue, and the old one's
 * messages are lost with it.
 */

/** Receives a function may fail a message before SQS moves it to the dead-letter queue. */
export const MAX_RECEIVES = 5;

export interface DeadLetterQueueProps {
  /** What its messages are, in words for the reason cdk-nag records: `deliveries that failed five receives`. */
  readonly holds: string;
  /**
   * Set when the queue is an on-failure destination (of a stream mapping, an EventBridge target,
   * Scheduler, Lambda's asynchronous invocations) rather than a redrive policy's target: who sends
   * to it. cdk-nag recognises only redrive policies as dead-letter use, so it is told here.
   */
  readonly destinationOf?: string;
}

/** A dead-letter queue: 14 days to inspect and redrive its messages; nothing consumes it, an alarm watches its depth. */
export function deadLetterQueue(scope: Construct, id: string, props: DeadLetterQueueProps): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  NagSuppressions.addResourceSuppressions(queue, [
    {
      id: 'Serverless-SQSRedrivePolicy',
      reason:
        `This queue is a dead-letter queue: its messages are ${props.holds}, kept for inspection and ` +
        'redrive, never consumed by a function, so there is no receive count to exceed. Its depth alarms instead.',
    },
    ...(props.destinationOf
      ? [
          {
            id: 'AwsSolutions-SQS3',
            reason: `This queue is itself a dead-letter destination, of ${props.destinationOf}; cdk-nag only recognises SQS redrive policies as DLQ use.`,
          },
        ]
      : []),
  ]);
  return queue;
}

export interface WorkQueueProps {
  /** The consuming function's timeout: the queue's visibility timeout is six times it. */
  readonly workerTimeout: Duration;
  /** What its messages are, plural: `deliveries`. */
  readonly messages: string;
  /** How long SQS keeps a message. @default 4 days (SQS's default) */
  readonly retentionPeriod?: Duration;
}

export interface WorkQueue {
  readonly queue: Queue;
  /** The messages the function failed on `MAX_RECEIVES` times: a bug or an outage to look at, then redrive. */
  readonly deadLetterQueue: Queue;
}

/**
 * A queue a function consumes, with its dead-letter queue, under the two ids given. Its visibility
 * timeout is six times the function's timeout (AWS's advice for Lambda consumers), so that a message
 * is not handed out again while a throttled or retried invocation still holds it.
 */
export function workQueue(
  scope: Construct,
  ids: { readonly queue: string; readonly deadLetterQueue: string },
  props: WorkQueueProps,
): WorkQueue {
  const dead = deadLetterQueue(scope, ids.deadLetterQueue, {
    holds: `${props.messages} that failed ${MAX_RECEIVES} receives`,
  });
  const queue = new Queue(scope, ids.queue, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: Duration.seconds(props.workerTimeout.toSeconds() * 6),
    ...(props.retentionPeriod ? { retentionPeriod: props.retentionPeriod } : {}),
    deadLetterQueue: { queue: dead, maxReceiveCount: MAX_RECEIVES },
  });
  return { queue, deadLetterQueue: dead };
}
