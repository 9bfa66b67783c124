import { join } from 'node:path';
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { STREAM_IGNORED_ENTITIES } from '../../functions/data/stream-entities.ts';
import { tableDefinition } from '../../functions/data/table.ts';
import { AlarmTopic, ServiceAlarms } from '../constructs/alarms.ts';
import { ImageImportPipeline } from '../constructs/image-import.ts';
import { METRICS_NAMESPACE, repoRoot, ServiceFunction, TABLE_READ } from '../constructs/service-function.ts';
import { WebhookLadder } from '../constructs/webhook-ladder.ts';

/** The Bedrock model of the AI worker, and what its tokens cost (the Tenants' AI spend is charged at it). */
export interface AiModelSettings {
  /**
   * A Bedrock foundation model id (`amazon.nova-lite-v1:0`, invoked in the stack's region) or a
   * cross-region inference profile id (`eu.amazon.nova-lite-v1:0`); see
   * ServiceFunction.bindBedrockModel for what each is granted.
   */
  readonly modelId: string;
  /**
   * For an inference profile: the regions Bedrock may route it to, each granted the foundation model.
   * @default - every region, on the condition that the call comes through the profile
   */
  readonly destinationRegions?: readonly string[];
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
  /** The cursor-signing key; every function gets its ARN as `CURSOR_SECRET_ARN`. */
  readonly cursorSecret: ISecret;
  /** The photo bucket the import worker stores photos in, and where they are served. */
  readonly photoBucket: IBucket;
  readonly photoBaseUrl: string;
  /** Where the alarm topic emails every alarm (CDK context `alarmEmail`). */
  readonly alarmEmail: string;
  /**
   * The model of the AI worker and its prices.
   * @default DEFAULT_AI_MODEL (Amazon Nova Lite, `amazon.nova-lite-v1:0`)
   */
  readonly aiModel?: AiModelSettings;
  /**
   * The SES sender of the webhook worker's emails (an endpoint disabled).
   * @default - none (the worker cannot email; tests only)
   */
  readonly emailFrom?: string;
}

/**
 * Memory of the workers. API functions keep ServiceFunction's 1024 MB: their cold start is module
 * load, which is CPU-bound (the bench's module-load figures are taken on a full core; Lambda gives
 * 1024 MB about 0.6 of one), and a caller waits for it. The workers wait on I/O (Bedrock, DynamoDB,
 * SQS) nearly all of their run and nobody waits for their cold start, so half the memory halves the
 * GB-seconds billed for the same wall time.
 */
export const WORKER_MEMORY_MB = 512;

/**
 * One message per invocation: a message is one model call (up to 4,000 output tokens, well under a
 * minute), and with one per batch a slow or throttled call can only time out its own message, never
 * put a batch of finished ones back on the queue to be charged and run again. The timeout leaves room
 * for the SDK's retries of a throttled call.
 */
export const AI_BATCH_SIZE = 1;
const AI_WORKER_TIMEOUT = Duration.minutes(5);

/**
 * The stream consumer's filter criteria (Lambda event filtering; patterns are ORed): an insert or
 * modify whose new image is not a bookkeeping entity, or a remove whose old image is not one. Records
 * without `__edb_e__` (nothing the service writes) match neither. TTL expiries of idempotency records
 * and rate-limit windows are removes of bookkeeping entities, so they are dropped too.
 */
export function streamFilterPatterns(): Record<string, unknown>[] {
  const notBookkeeping = { S: [{ 'anything-but': [...STREAM_IGNORED_ENTITIES] }] };
  return [
    { dynamodb: { NewImage: { __edb_e__: notBookkeeping } } },
    { eventName: ['REMOVE'], dynamodb: { OldImage: { __edb_e__: notBookkeeping } } },
  ];
}

/** Cdk-nag's reason for the dead-letter queues' own lack of a redrive policy. */
const DLQ_HAS_NO_DLQ =
  'This queue is a dead-letter queue: its messages are failures kept for inspection and redrive, ' +
  'never consumed by a function, so there is no receive count to exceed. Its depth alarms instead.';

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
  /** Receives the daily job's events that failed every retry (EventBridge delivery and the function). */
  readonly aiResumeDeadLetterQueue: Queue;
  /** The model the AI worker is bound to. */
  readonly aiModel: AiModelSettings;
  /** The topic every alarm of the service notifies (the API stack's alarms too). */
  readonly alarmTopic: AlarmTopic;
  /** The alarms of this stack; `alarms.watchDeadLetterQueue(queue)` adds one for a new DLQ. */
  readonly alarms: ServiceAlarms;
  /** Webhook delivery: queue, DLQ (`webhookLadder.deadLetterQueue`), worker, scheduler group and role. */
  readonly webhookLadder: WebhookLadder;
  /** Photo import by URL: queue, DLQ (`imageImport.deadLetterQueue`) and worker. */
  readonly imageImport: ImageImportPipeline;

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
      { id: 'Serverless-SQSRedrivePolicy', reason: DLQ_HAS_NO_DLQ },
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
    NagSuppressions.addResourceSuppressions(this.aiDeadLetterQueue, [
      { id: 'Serverless-SQSRedrivePolicy', reason: DLQ_HAS_NO_DLQ },
    ]);
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
      memorySize: WORKER_MEMORY_MB,
    });
    // Reads only, for now: the event log and fan-out will add their own grants when they land.
    this.streamConsumer.bindTable(props.table, {
      actions: TABLE_READ,
      indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
    });
    this.streamConsumer.bindQueue(this.aiQueue, 'AI_QUEUE_URL');
    this.streamConsumer.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');
    this.streamConsumer.suppressFunctionRule(
      'Serverless-LambdaDLQ',
      'Invoked only by its DynamoDB event source mapping, never asynchronously: failed batches go to ' +
        "the mapping's on-failure destination (StreamDeadLetterQueue), which a function DLQ cannot see.",
    );

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
        filters: streamFilterPatterns().map((pattern) => FilterCriteria.filter(pattern)),
      }),
    );
    this.streamConsumer.suppressWildcardResource(
      'dynamodb:ListStreams (granted by the DynamoDB event source) does not support resource-level ' +
        'permissions: IAM only accepts "*" for it. Stream reads themselves are scoped to the stream ARN.',
    );

    this.webhookLadder = new WebhookLadder(this, 'WebhookLadder', {
      table: props.table,
      streamConsumer: this.streamConsumer,
      ...(props.emailFrom ? { emailFrom: props.emailFrom } : {}),
    });
    this.webhookLadder.worker.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');

    this.imageImport = new ImageImportPipeline(this, 'ImageImport', {
      table: props.table,
      photoBucket: props.photoBucket,
      photoBaseUrl: props.photoBaseUrl,
    });
    this.imageImport.worker.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');

    this.aiWorker = new ServiceFunction(this, 'AiWorker', {
      entry: join(repoRoot, 'functions', 'workers', 'ai.ts'),
      description: 'AI worker: enriches listings with Amazon Bedrock',
      timeout: AI_WORKER_TIMEOUT,
      memorySize: WORKER_MEMORY_MB,
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
    this.aiWorker.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');
    this.aiWorker.bindBedrockModel(this.aiModel.modelId, {
      destinationRegions: this.aiModel.destinationRegions,
    });
    this.aiWorker.suppressFunctionRule(
      'Serverless-LambdaDLQ',
      'Invoked only by its SQS event source mapping, never asynchronously: a message that fails five ' +
        "receives moves to AiDeadLetterQueue through the AI queue's redrive policy.",
    );
    const aiQueueSource = new SqsEventSource(this.aiQueue, {
      batchSize: AI_BATCH_SIZE,
      // The worker reports only the messages that failed; the others are deleted.
      reportBatchItemFailures: true,
      // Caps parallel Bedrock calls (and so the burst a bulk import can cause against the model's
      // quota and the bill); messages wait in the queue meanwhile.
      maxConcurrency: 10,
    });
    this.aiWorker.fn.addEventSource(aiQueueSource);
    NagSuppressions.addResourceSuppressions(
      this.aiWorker.fn,
      [
        {
          id: 'Serverless-LambdaEventSourceMappingDestination',
          reason:
            'An SQS event source mapping has no on-failure destination (Lambda supports them for streams ' +
            'and Kafka only): a message that keeps failing moves to AiDeadLetterQueue through the AI ' +
            "queue's redrive policy after five receives.",
        },
      ],
      true,
    );

    // A scheduled run that EventBridge could not deliver, or that failed Lambda's two asynchronous
    // retries, lands here; redrive it by invoking the function again (the job is idempotent).
    this.aiResumeDeadLetterQueue = new Queue(this, 'AiResumeDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.aiResumeDeadLetterQueue, [
      { id: 'Serverless-SQSRedrivePolicy', reason: DLQ_HAS_NO_DLQ },
      {
        id: 'AwsSolutions-SQS3',
        reason:
          "This queue is itself a dead-letter destination: of the daily job's EventBridge target and of " +
          "the function's asynchronous invocations. cdk-nag only recognises SQS redrive policies as DLQ use.",
      },
    ]);

    // Daily: a new month resets every Tenant's AI spend, so enrichments paused by the ceiling resume.
    this.aiResume = new ServiceFunction(this, 'AiResume', {
      entry: join(repoRoot, 'functions', 'workers', 'ai-resume.ts'),
      description: 'Daily job: resumes AI enrichments paused by a spend ceiling once the month resets',
      timeout: Duration.minutes(5),
      memorySize: WORKER_MEMORY_MB,
      deadLetterQueue: this.aiResumeDeadLetterQueue,
    });
    this.aiResume.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');
    // Lists the Tenants (gsi2) and their listings (gsi1), reads the month's spend, re-requests held ones.
    this.aiResume.bindTable(props.table, {
      actions: [...TABLE_READ, 'dynamodb:UpdateItem'],
      indexNames: ['gsi1', 'gsi2'],
    });
    new Rule(this, 'AiResumeSchedule', {
      description: 'Resume AI enrichments paused by the monthly spend ceiling',
      schedule: Schedule.cron({ minute: '15', hour: '0' }),
      targets: [
        new LambdaFunction(this.aiResume.fn, {
          retryAttempts: 2,
          maxEventAge: Duration.hours(2),
          deadLetterQueue: this.aiResumeDeadLetterQueue,
        }),
      ],
    });

    this.alarmTopic = new AlarmTopic(this, 'AlarmTopic', { email: props.alarmEmail });
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      topic: this.alarmTopic.topic,
      deadLetterQueues: [
        this.streamDeadLetterQueue,
        this.aiDeadLetterQueue,
        this.aiResumeDeadLetterQueue,
        this.webhookLadder.deadLetterQueue,
      ],
      functionGroups: [
        {
          name: 'Workers',
          functions: [
            this.streamConsumer.fn,
            this.aiWorker.fn,
            this.aiResume.fn,
            this.webhookLadder.worker.fn,
          ],
        },
      ],
      streamConsumers: [this.streamConsumer.fn],
      tables: [
        {
          table: props.table,
          indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
        },
      ],
    });

    // Photo imports: a dead-lettered import is a bug or an outage (a bad file only fails its import).
    this.alarms.watchDeadLetterQueue(this.imageImport.deadLetterQueue);
    this.alarms.watchFunctionGroup({ name: 'PhotoImport', functions: [this.imageImport.worker.fn] });

    // A disabled endpoint stops a Tenant's integration until someone re-enables it: ops hear of each.
    this.alarms.watchBusinessCount({
      namespace: METRICS_NAMESPACE,
      metricName: 'WebhookEndpointsDisabled',
      service: 'listings-leads',
      description:
        'A webhook endpoint was disabled (20 failed deliveries in a row, or 410 Gone); its Tenant Admins were emailed',
    });
  }
}
