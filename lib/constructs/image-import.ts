import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

export interface ImageImportPipelineProps {
  /** The import worker's timeout (its row of functions/workers.ts): the queue's visibility is six times it. */
  readonly workerTimeout: Duration;
}

/**
 * Photo import by URL (interface §3.5): the import queue with its dead-letter queue. The worker that
 * fetches each URL through the SSRF-safe connector is the `imageImport` row of the worker table
 * (functions/workers.ts), built by the async stack on this queue.
 *
 * - The routes that request an import send to `queue` (their row `uses` 'imageQueue').
 * - A file that cannot be imported ends its import as failed, which is no error; only an unexpected
 *   one (storage, table) is retried, and after five receives the message is dead-lettered
 *   (`deadLetterQueue`: the stack alarms on its depth).
 */
export class ImageImportPipeline extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ImageImportPipelineProps) {
    super(scope, id);
    // The fetch has 30 s; storing up to 20 MB and the table writes get the rest.
    const { workerTimeout } = props;

    this.deadLetterQueue = new Queue(this, 'ImportDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.deadLetterQueue, [
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason:
          'This queue is a dead-letter queue: its messages are imports that failed five receives, kept for ' +
          'inspection and redrive, never consumed by a function, so there is no receive count to exceed.',
      },
    ]);
    this.queue = new Queue(this, 'ImportQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the worker's timeout (AWS's advice for Lambda consumers).
      visibilityTimeout: Duration.seconds(workerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });
  }
}
