import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { bindPhotoStore } from './photo-store-access.ts';
import { repoRoot, ServiceFunction } from './service-function.ts';

export interface ImageImportPipelineProps {
  /** The table holding the imports and the listings (their galleries). */
  readonly table: ITable;
  /** The photo bucket; the worker writes under `images/` only. */
  readonly photoBucket: IBucket;
  /** Where photos are served (`PHOTO_BASE_URL`, the CDN). */
  readonly photoBaseUrl: string;
  /**
   * How many imports may run at once (and so how many outside servers are fetched from in parallel).
   * @default 10
   */
  readonly maxConcurrency?: number;
}

/**
 * Photo import by URL (interface §3.5): the import queue with its dead-letter queue, and the worker
 * that fetches each URL through the SSRF-safe connector (30 s at most), stores the file under
 * `images/` and adds it to the listing's gallery.
 *
 * - The routes that request an import send to `queue` (their row `uses` 'imageQueue').
 * - A file that cannot be imported ends its import as failed, which is no error; only an unexpected
 *   one (storage, table) is retried, and after five receives the message is dead-lettered
 *   (`deadLetterQueue`: the stack alarms on its depth).
 */
export class ImageImportPipeline extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;

  constructor(scope: Construct, id: string, props: ImageImportPipelineProps) {
    super(scope, id);
    // The fetch has 30 s; storing up to 20 MB and the table writes get the rest.
    const workerTimeout = Duration.seconds(60);

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

    this.worker = new ServiceFunction(this, 'Worker', {
      entry: join(repoRoot, 'functions', 'workers', 'image-import.ts'),
      description: 'Photo import worker: fetches photo URLs (SSRF-safe), stores them, adds them to galleries',
      timeout: workerTimeout,
      // Holds one file of up to 20 MB (and its copy for the upload) besides the runtime.
      memorySize: 512,
    });
    // Reads the import and the listing (GetItem), then writes the gallery and ends the import (UpdateItem).
    this.worker.bindTable(props.table, { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] });
    bindPhotoStore(this.worker, props.photoBucket, props.photoBaseUrl, {
      put: ['images/*'],
      delete: ['images/*'],
    });
    this.worker.suppressFunctionRule(
      'Serverless-LambdaDLQ',
      'Invoked only by its SQS event source mapping, never asynchronously: a message that fails five ' +
        "receives moves to the pipeline's DeadLetterQueue through the import queue's redrive policy.",
    );
    this.worker.fn.addEventSource(
      new SqsEventSource(this.queue, {
        // One fetch per invocation: a slow server times out its own import only.
        batchSize: 1,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency ?? 10,
      }),
    );
    NagSuppressions.addResourceSuppressions(
      this.worker.fn,
      [
        {
          id: 'Serverless-LambdaEventSourceMappingDestination',
          reason:
            'An SQS event source mapping has no on-failure destination (Lambda supports them for streams ' +
            "and Kafka only): a message that keeps failing moves to the pipeline's DeadLetterQueue through the " +
            "import queue's redrive policy after five receives.",
        },
      ],
      true,
    );
  }
}
