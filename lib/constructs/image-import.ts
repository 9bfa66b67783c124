import type { Duration } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workQueue } from './queues.ts';

export interface ImageImportPipelineProps {
  /** The import worker's timeout (its row of functions/workers.ts): the queue's visibility is six times it. */
  readonly workerTimeout: Duration;
}

/**
 * Photo import (by URL, or an upload to confirm): the import queue with its dead-letter queue. The
 * worker that fetches each URL through the SSRF-safe connector is the `imageImport` row of the worker
 * table (functions/workers.ts), built by the async stack on this queue.
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
    // The worker's timeout gives the fetch its 30 s, and storing up to 20 MB and the table writes the rest.
    const queues = workQueue(
      this,
      { queue: 'ImportQueue', deadLetterQueue: 'ImportDeadLetterQueue' },
      { workerTimeout: props.workerTimeout, messages: 'imports' },
    );
    this.queue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
  }
}
