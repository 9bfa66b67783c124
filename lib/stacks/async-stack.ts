import { join } from 'node:path';
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../functions/data/table.ts';
import { repoRoot, ServiceFunction, TABLE_READ } from '../constructs/service-function.ts';

/** The Bedrock model of the AI worker, and what its tokens cost (the Tenants' AI spend is charged at it). */
export interface AiModelSettings {
  /**
   * A Bedrock foundation model id (`provider.model`), invoked on demand in the stack's region. Not an
   * inference profile id: the worker is granted this model's ARN in this region and nothing else.
   */
  readonly modelId: string;
  /** USD per 1,000 input tokens (`AI_PRICE_INPUT_PER_1K_USD`). */
  readonly priceInputPer1kUsd: number;
  /** USD per 1,000 output tokens (`AI_PRICE_OUTPUT_PER_1K_USD`). */
  readonly priceOutputPer1kUsd: number;
}

/**
 * Amazon Nova Lite: multilingual, served on demand in us-east-1 and several other regions, and among
 * the cheapest Bedrock text models ($0.06 / $0.24 per million input / output tokens), which suits
 * translations and listing copy. Prices are Bedrock's on-demand list prices; change them with the model.
 */
export const DEFAULT_AI_MODEL: AiModelSettings = {
  modelId: 'amazon.nova-lite-v1:0',
  priceInputPer1kUsd: 0.00006,
  priceOutputPer1kUsd: 0.00024,
};

export interface AsyncStackProps extends StackProps {
  /** The table whose stream feeds the consumer, and that the workers read and write. */
  readonly table: ITable;
  /**
   * The model of the AI worker and its prices.
   * @default DEFAULT_AI_MODEL (Amazon Nova Lite, `amazon.nova-lite-v1:0`)
   */
  readonly aiModel?: AiModelSettings;
}

/**
 * One AI message is one model call, up to 4,000 output tokens (functions/platform/ports/bedrock-ai.ts):
 * well under a minute. The worker handles a batch one message after another, so its timeout covers a
 * full batch of slow calls; a timeout would put the whole batch back on the queue.
 */
const AI_BATCH_SIZE = 5;
const AI_WORKER_TIMEOUT = Duration.minutes(5);

/**
 * The asynchronous side: the table's stream consumer, and the AI queue with its worker. The consumer
 * turns a listing that asks for enrichment into an AI message (an outbox: the request was committed
 * with the listing); the worker calls Bedrock and writes the result back.
 *
 * The API stack is built after this one: the routes whose row `uses` 'aiQueue' send to `aiQueue`
 * (lib/app.ts). So nothing here may reference the API stack; that would be a dependency cycle.
 */
export class AsyncStack extends Stack {
  readonly streamConsumer: ServiceFunction;
  readonly streamDeadLetterQueue: Queue;
  readonly aiQueue: Queue;
  readonly aiDeadLetterQueue: Queue;
  readonly aiWorker: ServiceFunction;
  readonly aiResume: ServiceFunction;
  /** The model the AI worker is bound to. */
  readonly aiModel: AiModelSettings;

  constructor(scope: Construct, id: string, props: AsyncStackProps) {
    super(scope, id, props);
    this.aiModel = props.aiModel ?? DEFAULT_AI_MODEL;

    // Receives the description of a batch (shard, sequence numbers) that failed every retry or grew too
    // old, so that it can be read again from the stream while the stream still holds it (24 h).
    this.streamDeadLetterQueue = new Queue(this, 'StreamDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.streamDeadLetterQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter destination: the on-failure destination of the stream ' +
          'consumer. cdk-nag only recognises SQS redrive policies as DLQ use.',
      },
    ]);

    // AI messages that failed in an unexpected way five times (the worker's own retry ladder re-sends
    // provider failures as new messages, so these are bugs or outages), kept for inspection and redrive.
    this.aiDeadLetterQueue = new Queue(this, 'AiDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.aiQueue = new Queue(this, 'AiQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for Lambda consumers: six times the function timeout, so that a message is not
      // handed out again while a throttled or retried invocation still holds it.
      visibilityTimeout: Duration.seconds(AI_WORKER_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.aiDeadLetterQueue, maxReceiveCount: 5 },
    });

    this.streamConsumer = new ServiceFunction(this, 'StreamConsumer', {
      entry: join(repoRoot, 'functions', 'streams', 'consumer.ts'),
      description: 'DynamoDB stream consumer: derives events from table changes, queues AI work',
      timeout: Duration.seconds(60),
    });
    // Reads only, for now: the event log and fan-out will add their own grants when they land.
    this.streamConsumer.bindTable(props.table, {
      actions: TABLE_READ,
      indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
    });
    this.streamConsumer.bindQueue(this.aiQueue, 'AI_QUEUE_URL');

    this.streamConsumer.fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        // Order matters per item: one batch at a time per shard.
        parallelizationFactor: 1,
        // The handler reports the first failed record and everything after it; Lambda retries from there.
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(this.streamDeadLetterQueue),
      }),
    );
    this.streamConsumer.suppressWildcardResource(
      'dynamodb:ListStreams (granted by the DynamoDB event source) does not support resource-level ' +
        'permissions: IAM only accepts "*" for it. Stream reads themselves are scoped to the stream ARN.',
    );

    this.aiWorker = new ServiceFunction(this, 'AiWorker', {
      entry: join(repoRoot, 'functions', 'workers', 'ai.ts'),
      description: 'AI worker: enriches listings with Amazon Bedrock',
      timeout: AI_WORKER_TIMEOUT,
      memorySize: 1024,
      environment: {
        AI_PRICE_INPUT_PER_1K_USD: String(this.aiModel.priceInputPer1kUsd),
        AI_PRICE_OUTPUT_PER_1K_USD: String(this.aiModel.priceOutputPer1kUsd),
      },
    });
    // Key reads (Tenant, listing, the month's AI spend) and updates (the listing, conditioned on its
    // request id; the spend counter). Queries for Lead scoring: the Lead with its criteria, inquiries
    // and activities, on the table and the two indexes they are listed by (gsi1, gsi2). A score is
    // written in the Lead's transaction: the Lead put, its search tokens put and deleted, claims checked.
    this.aiWorker.bindTable(props.table, {
      actions: [
        ...TABLE_READ,
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
      ],
      indexNames: ['gsi1', 'gsi2'],
    });
    // The retry ladder re-sends a failed request to its own queue, with a delay.
    this.aiWorker.bindQueue(this.aiQueue, 'AI_QUEUE_URL');
    this.aiWorker.bindFoundationModel(this.aiModel.modelId);
    this.aiWorker.fn.addEventSource(
      new SqsEventSource(this.aiQueue, {
        batchSize: AI_BATCH_SIZE,
        // The worker reports only the messages that failed; the others are deleted.
        reportBatchItemFailures: true,
        // Caps parallel Bedrock calls (and so the burst a bulk import can cause against the model's
        // quota and the bill); messages wait in the queue meanwhile.
        maxConcurrency: 10,
      }),
    );

    // Daily: a new month resets every Tenant's AI spend, so enrichments paused by the ceiling resume.
    this.aiResume = new ServiceFunction(this, 'AiResume', {
      entry: join(repoRoot, 'functions', 'workers', 'ai-resume.ts'),
      description: 'Daily job: resumes AI enrichments paused by a spend ceiling once the month resets',
      timeout: Duration.minutes(5),
    });
    // Lists the Tenants (gsi2) and their listings (gsi1), reads the month's spend, re-requests held ones.
    this.aiResume.bindTable(props.table, {
      actions: [...TABLE_READ, 'dynamodb:UpdateItem'],
      indexNames: ['gsi1', 'gsi2'],
    });
    new Rule(this, 'AiResumeSchedule', {
      description: 'Resume AI enrichments paused by the monthly spend ceiling',
      schedule: Schedule.cron({ minute: '15', hour: '0' }),
      targets: [new LambdaFunction(this.aiResume.fn, { retryAttempts: 2 })],
    });
  }
}
