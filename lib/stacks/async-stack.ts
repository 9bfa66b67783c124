import { join } from 'node:path';
import { ArnFormat, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { STREAM_IGNORED_ENTITIES } from '../../functions/data/stream-entities.ts';
import { tableDefinition } from '../../functions/data/table.ts';
import {
  WORKER_MEMORY_MB as DEFAULT_WORKER_MEMORY_MB,
  type WorkerDefinition,
  type WorkerName,
  type WorkerQueue,
  workers,
} from '../../functions/workers.ts';
import { AlarmTopic, ServiceAlarms } from '../constructs/alarms.ts';
import { bindCatalogueStore } from '../constructs/catalogue-store-access.ts';
import { ImageImportPipeline } from '../constructs/image-import.ts';
import { bindPhotoStore } from '../constructs/photo-store-access.ts';
import { deadLetterQueue, workQueue } from '../constructs/queues.ts';
import { METRICS_NAMESPACE, repoRoot, ServiceFunction } from '../constructs/service-function.ts';
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
 * Amazon Nova Lite: multilingual and among the cheapest Bedrock text models ($0.06 / $0.24 per
 * million input / output tokens), which suits translations and listing copy. Prices are Bedrock's
 * on-demand list prices; change them with the model. `modelId` is the foundation model: on demand it
 * is served in-region in a few regions only (us-east-1 among them), so the worker calls it through
 * the geographic inference profile of the deploy region (defaultAiModelFor).
 */
export const DEFAULT_AI_MODEL: AiModelSettings = {
  modelId: 'amazon.nova-lite-v1:0',
  priceInputPer1kUsd: 0.00006,
  priceOutputPer1kUsd: 0.00024,
};

/**
 * Amazon Nova Lite's geographic (system-defined) cross-region inference profiles, by id prefix: the
 * regions that may call each, which are also the regions it routes to (Bedrock user guide, "Supported
 * cross-Region inference profiles"; the same regions are listed as supporting the Nova Lite inference
 * profile in "Supported Regions and models for batch inference"). AWS does not add regions to an
 * existing profile (it publishes a new profile instead), so the grants can name these regions.
 * `npm run preflight` compares them with the profile's destinations in the account.
 */
export const DEFAULT_AI_MODEL_PROFILES: Readonly<Record<string, readonly string[]>> = {
  us: ['us-east-1', 'us-east-2', 'us-west-2'],
  eu: ['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'],
  apac: ['ap-northeast-1', 'ap-northeast-2', 'ap-south-1', 'ap-southeast-1', 'ap-southeast-2'],
};

/**
 * The default model for a stack in `region`: Nova Lite through the geographic inference profile that
 * `region` may call (`eu.amazon.nova-lite-v1:0` from eu-west-1), granted in each region the profile
 * routes to. A region no Nova Lite profile serves fails with what to pass instead.
 */
export function defaultAiModelFor(region: string): AiModelSettings {
  const geography = Object.keys(DEFAULT_AI_MODEL_PROFILES).find((prefix) =>
    DEFAULT_AI_MODEL_PROFILES[prefix]?.includes(region),
  );
  if (geography === undefined) {
    const served = Object.values(DEFAULT_AI_MODEL_PROFILES).flat().join(', ');
    throw new Error(
      `The default AI model, Amazon Nova Lite, has no inference profile that ${region} may call ` +
        `(its us./eu./apac. profiles serve ${served}). Pass a model that ${region} offers: ` +
        '-c aiModelId=<Bedrock model or inference profile id> -c aiPriceInputPer1kUsd=<USD> ' +
        '-c aiPriceOutputPer1kUsd=<USD> (per 1,000 tokens), or deploy to one of those regions.',
    );
  }
  return {
    ...DEFAULT_AI_MODEL,
    modelId: `${geography}.${DEFAULT_AI_MODEL.modelId}`,
    destinationRegions: DEFAULT_AI_MODEL_PROFILES[geography],
  };
}

export interface AsyncStackProps extends StackProps {
  /** The table whose stream feeds the consumer, and that the workers read and write. */
  readonly table: ITable;
  /** The cursor-signing key; every function gets its ARN as `CURSOR_SECRET_ARN`. */
  readonly cursorSecret: ISecret;
  /** The photo bucket the import worker stores photos in, and where they are served. */
  readonly photoBucket: IBucket;
  readonly photoBaseUrl: string;
  /** The photo distribution (photo CDN stack), on which the import worker invalidates deleted photos. */
  readonly photoDistribution: IDistribution;
  /** Where the alarm topic emails every alarm (CDK context `alarmEmail`). */
  readonly alarmEmail: string;
  /**
   * The model of the AI worker and its prices: lib/app.ts picks it (aiModelFromContext), by default
   * Nova Lite through the inference profile of the stack's region (defaultAiModelFor).
   */
  readonly aiModel: AiModelSettings;
  /**
   * The SES sender of the webhook worker's emails (an endpoint disabled).
   * @default - none (the worker cannot email; tests only)
   */
  readonly emailFrom?: string;
}

/** Memory of a worker whose row does not say (functions/workers.ts explains the choice). */
export const WORKER_MEMORY_MB = DEFAULT_WORKER_MEMORY_MB;

/**
 * The stream consumer's filter criteria (Lambda event filtering; patterns are ORed): an insert or
 * modify whose new image is not a bookkeeping entity, or a remove whose old image is not one. Records
 * without `__edb_e__` (nothing the service writes) match neither. A TTL expiry (DynamoDB's own
 * delete: `userIdentity.principalId` is TTL_DELETE_PRINCIPAL; a delete by the service carries no
 * `userIdentity`) matches neither, whatever the entity: events and webhook deliveries expire by the
 * million and no processor reads an expiry (functions/data/stream-entities.ts `isStreamIgnored`, the
 * same rule where no filter runs).
 */
export function streamFilterPatterns(): Record<string, unknown>[] {
  const notBookkeeping = { S: [{ 'anything-but': [...STREAM_IGNORED_ENTITIES] }] };
  return [
    { dynamodb: { NewImage: { __edb_e__: notBookkeeping } } },
    {
      eventName: ['REMOVE'],
      userIdentity: { principalId: [{ exists: false }] },
      dynamodb: { OldImage: { __edb_e__: notBookkeeping } },
    },
  ];
}

/**
 * The asynchronous side: one function per row of the worker table (functions/workers.ts), each fed
 * by its trigger (the table's stream, a queue, a schedule), granted its row's table access and what
 * its row `uses`, and nothing else; the queues they read and send to (the AI queue, the webhook
 * ladder), the dead-letter queues, and the alarms of them all.
 *
 * The API stack is built after this one: the routes whose row `uses` 'aiQueue' send to `aiQueue`
 * (lib/app.ts). So nothing here may reference the API stack; that would be a dependency cycle.
 */
export class AsyncStack extends Stack {
  /** Every worker of the table, by row name. */
  readonly workers: ReadonlyMap<WorkerName, ServiceFunction>;
  readonly streamDeadLetterQueue: Queue;
  readonly aiQueue: Queue;
  readonly aiDeadLetterQueue: Queue;
  /** Receives the daily job's events that failed every retry (EventBridge delivery and the function). */
  readonly aiResumeDeadLetterQueue: Queue;
  /** Receives the catalogue rebuilder's runs that failed every retry (EventBridge delivery and the function). */
  readonly catalogueRebuildDeadLetterQueue: Queue;
  /** The model the AI worker is bound to. */
  readonly aiModel: AiModelSettings;
  /** The topic every alarm of the service notifies (the API stack's alarms too). */
  readonly alarmTopic: AlarmTopic;
  /** The alarms of this stack; `alarms.watchDeadLetterQueue(queue)` adds one for a new DLQ. */
  readonly alarms: ServiceAlarms;
  /** Webhook delivery: queue, DLQ (`webhookLadder.deadLetterQueue`), worker, scheduler group and role. */
  readonly webhookLadder: WebhookLadder;
  /** Photo import by URL: its queue and dead-letter queue (`imageImport.deadLetterQueue`). */
  readonly imageImport: ImageImportPipeline;
  readonly #props: AsyncStackProps;
  /** The queues a `queue` trigger names, and the dead-letter queue each redrives to. */
  readonly #queues: Record<WorkerQueue, { queue: IQueue; deadLetterQueue: IQueue }>;

  constructor(scope: Construct, id: string, props: AsyncStackProps) {
    super(scope, id, props);
    this.#props = props;
    this.aiModel = props.aiModel;

    // Receives the description of a batch (shard, sequence numbers) that failed every retry or grew too
    // old, so that it can be read again from the stream while the stream still holds it (24 h).
    this.streamDeadLetterQueue = deadLetterQueue(this, 'StreamDeadLetterQueue', {
      holds: 'descriptions of stream batches that failed every retry',
      destinationOf: "the stream consumer's event source mapping, on failure",
    });

    // AI messages that failed in an unexpected way five times (the worker's own retry ladder re-sends
    // provider failures as new messages, so these are bugs or outages), kept for inspection and redrive.
    const ai = workQueue(
      this,
      { queue: 'AiQueue', deadLetterQueue: 'AiDeadLetterQueue' },
      { workerTimeout: Duration.seconds(consumerTimeoutSeconds('ai')), messages: 'AI messages' },
    );
    this.aiQueue = ai.queue;
    this.aiDeadLetterQueue = ai.deadLetterQueue;

    this.webhookLadder = new WebhookLadder(this, 'WebhookLadder', {
      workerTimeout: Duration.seconds(consumerTimeoutSeconds('webhooks')),
    });

    // A scheduled run that EventBridge could not deliver, or that failed Lambda's two asynchronous
    // retries, lands here; redrive it by invoking the function again (the job is idempotent).
    this.aiResumeDeadLetterQueue = deadLetterQueue(this, 'AiResumeDeadLetterQueue', {
      holds: "the daily job's runs that failed every retry",
      destinationOf: "the daily job's EventBridge target and the function's asynchronous invocations",
    });

    // A run of the catalogue rebuilder that failed its retries. Nothing to redrive: the markers of the
    // Tenants it did not rebuild stay, and the next minute's run takes them; the alarm says it keeps failing.
    this.catalogueRebuildDeadLetterQueue = deadLetterQueue(this, 'CatalogueRebuildDeadLetterQueue', {
      holds: "the catalogue rebuilder's runs that failed every retry",
      destinationOf:
        "the catalogue rebuilder's EventBridge target and the function's asynchronous invocations",
    });

    this.imageImport = new ImageImportPipeline(this, 'ImageImportQueues', {
      workerTimeout: Duration.seconds(consumerTimeoutSeconds('images')),
    });

    this.#queues = {
      ai: { queue: this.aiQueue, deadLetterQueue: this.aiDeadLetterQueue },
      images: { queue: this.imageImport.queue, deadLetterQueue: this.imageImport.deadLetterQueue },
      webhooks: { queue: this.webhookLadder.queue, deadLetterQueue: this.webhookLadder.deadLetterQueue },
    };

    const built = new Map<WorkerName, ServiceFunction>();
    for (const row of workers) built.set(row.name, this.#buildWorker(row));
    this.workers = built;

    this.alarmTopic = new AlarmTopic(this, 'AlarmTopic', { email: props.alarmEmail });
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      topic: this.alarmTopic.topic,
      deadLetterQueues: [
        this.streamDeadLetterQueue,
        this.aiDeadLetterQueue,
        this.aiResumeDeadLetterQueue,
        this.catalogueRebuildDeadLetterQueue,
        this.webhookLadder.deadLetterQueue,
        this.webhookLadder.scheduleDeadLetterQueue,
        this.webhookLadder.sweeperDeadLetterQueue,
        this.imageImport.deadLetterQueue,
      ],
      functionGroups: [{ name: 'Workers', functions: [...built.values()].map((worker) => worker.fn) }],
      streamConsumers: workers
        .filter((row) => row.trigger.kind === 'stream')
        .map((row) => this.worker(row.name).fn),
      tables: [
        {
          table: props.table,
          indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
        },
      ],
    });

    // A disabled endpoint stops a Tenant's integration until someone re-enables it: ops hear of each.
    this.alarms.watchBusinessCount({
      namespace: METRICS_NAMESPACE,
      metricName: 'WebhookEndpointsDisabled',
      service: 'listings-leads',
      description:
        'A webhook endpoint was disabled (20 failed deliveries in a row, or 410 Gone); its Tenant Admins were emailed',
    });
    // A delivery the sweeper had to queue again was lost by its ladder (a schedule that never fired, a
    // rung that could not be queued): each is delivered late, and the cause needs a look.
    this.alarms.watchBusinessCount({
      namespace: METRICS_NAMESPACE,
      metricName: 'WebhookDeliveriesSwept',
      service: 'listings-leads',
      description:
        'The sweeper re-queued webhook deliveries overdue by more than 15 minutes (their ladder rung was lost)',
    });
    // An Owner notice (or an endpoint's disable notice) that SES refused for good (the sandbox and an
    // unverified recipient, sending paused, a rejection) is logged and dropped by the stream consumer,
    // never retried: without this alarm nobody would hear that Agents get no emails.
    this.alarms.watchBusinessCount({
      namespace: METRICS_NAMESPACE,
      metricName: 'OwnerNoticesParked',
      service: 'listings-leads',
      description:
        'SES refused an Owner or endpoint-disabled notice for good (sandbox, sending paused, rejected): it was logged and not sent',
    });
  }

  /** The function of worker `name`. */
  worker(name: WorkerName): ServiceFunction {
    const fn = this.workers.get(name);
    if (!fn) throw new Error(`No worker ${name} in the async stack`);
    return fn;
  }

  /** The stream consumer (the worker table's `streamConsumer` row). */
  get streamConsumer(): ServiceFunction {
    return this.worker('streamConsumer');
  }

  /** The AI worker (`aiWorker`). */
  get aiWorker(): ServiceFunction {
    return this.worker('aiWorker');
  }

  /** The daily AI resume job (`aiResume`). */
  get aiResume(): ServiceFunction {
    return this.worker('aiResume');
  }

  /** One row of the worker table as a function: its settings, table access, uses and trigger. */
  #buildWorker(row: WorkerDefinition): ServiceFunction {
    const props = this.#props;
    const usesBedrock = row.uses.includes('bedrock');
    const scheduled = row.trigger.kind === 'schedule';
    const service = new ServiceFunction(this, constructIdOf(row.name), {
      entry: join(repoRoot, row.entry),
      description: row.description,
      timeout: Duration.seconds(row.timeoutSeconds),
      memorySize: row.memoryMb ?? DEFAULT_WORKER_MEMORY_MB,
      ...(usesBedrock
        ? {
            environment: {
              AI_PRICE_INPUT_PER_1K_USD: String(this.aiModel.priceInputPer1kUsd),
              AI_PRICE_OUTPUT_PER_1K_USD: String(this.aiModel.priceOutputPer1kUsd),
            },
          }
        : {}),
      ...(scheduled ? { deadLetterQueue: this.#scheduleDeadLetterQueue(row) } : {}),
      ...(row.recursiveLoop ? { recursiveLoop: row.recursiveLoop } : {}),
      ...(row.architecture === 'x86_64' ? { architecture: Architecture.X86_64 } : {}),
    });
    service.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');
    service.bindTable(props.table, {
      actions: row.table.actions,
      indexNames:
        row.table.indexes === 'all'
          ? tableDefinition.globalSecondaryIndexes.map((index) => index.indexName)
          : row.table.indexes,
    });
    for (const use of new Set(row.uses)) {
      switch (use) {
        case 'aiQueue':
          service.bindQueue(this.aiQueue, 'AI_QUEUE_URL');
          break;
        case 'bedrock':
          service.bindBedrockModel(this.aiModel.modelId, {
            destinationRegions: this.aiModel.destinationRegions,
          });
          break;
        case 'email':
          // Without a sender (tests only) the function cannot email: the port throws on first use.
          if (props.emailFrom) service.bindEmailSender(props.emailFrom);
          break;
        case 'webhookQueue':
          this.webhookLadder.bindSender(service);
          break;
        case 'webhookSchedules':
          this.webhookLadder.bindScheduler(service);
          break;
        case 'photoImport':
          // Reads a confirmed upload's original and keeps a fetched one under originals/, stores the
          // renditions under images/; removes what a photo that failed or lost a race left, and a
          // deleted photo's files again.
          bindPhotoStore(service, props.photoBucket, props.photoBaseUrl, {
            get: ['originals/*'],
            put: ['images/*', 'originals/*'],
            delete: ['images/*', 'originals/*'],
          });
          break;
        case 'photoCdn':
          // Invalidates a deleted photo's paths on the photo distribution, and on nothing else.
          service.fn.addEnvironment('PHOTO_DISTRIBUTION_ID', props.photoDistribution.distributionId);
          service.role.addToPrincipalPolicy(
            new PolicyStatement({
              actions: ['cloudfront:CreateInvalidation'],
              resources: [
                Stack.of(this).formatArn({
                  service: 'cloudfront',
                  region: '',
                  resource: 'distribution',
                  resourceName: props.photoDistribution.distributionId,
                  arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
                }),
              ],
            }),
          );
          break;
        case 'catalogueWrite':
          bindCatalogueStore(service, props.photoBucket, { write: true });
          break;
        default:
          throw new Error(`Worker ${row.name} uses unknown service ${String(use satisfies never)}`);
      }
    }
    this.#addTrigger(row, service);
    return service;
  }

  #addTrigger(row: WorkerDefinition, service: ServiceFunction): void {
    const trigger = row.trigger;
    switch (trigger.kind) {
      case 'stream': {
        service.suppressFunctionRule(
          'Serverless-LambdaDLQ',
          'Invoked only by its DynamoDB event source mapping, never asynchronously: failed batches go to ' +
            "the mapping's on-failure destination (StreamDeadLetterQueue), which a function DLQ cannot see.",
        );
        service.fn.addEventSource(
          new DynamoEventSource(this.#props.table, {
            startingPosition: StartingPosition.TRIM_HORIZON,
            // The row's settings, the same the local stream poller applies (scripts/local/stream-poller.ts).
            batchSize: trigger.batchSize,
            // Order matters per item: one batch at a time per shard.
            parallelizationFactor: 1,
            // The handler reports the first failed record and everything after it; Lambda retries from there.
            reportBatchItemFailures: trigger.reportBatchItemFailures,
            bisectBatchOnError: trigger.bisectBatchOnError,
            retryAttempts: trigger.retryAttempts,
            maxRecordAge: Duration.seconds(trigger.maxRecordAgeSeconds),
            onFailure: new SqsDlq(this.streamDeadLetterQueue),
            filters: streamFilterPatterns().map((pattern) => FilterCriteria.filter(pattern)),
          }),
        );
        service.suppressWildcardResource(
          'dynamodb:ListStreams (granted by the DynamoDB event source) does not support resource-level ' +
            'permissions: IAM only accepts "*" for it. Stream reads themselves are scoped to the stream ARN.',
        );
        return;
      }
      case 'queue': {
        const { queue } = this.#queues[trigger.queue];
        service.suppressFunctionRule(
          'Serverless-LambdaDLQ',
          'Invoked only by its SQS event source mapping, never asynchronously: a message that fails five ' +
            `receives moves to the ${trigger.queue} queue's dead-letter queue through its redrive policy.`,
        );
        service.fn.addEventSource(
          new SqsEventSource(queue, {
            batchSize: trigger.batchSize,
            // The worker reports only the messages that failed; the others are deleted.
            reportBatchItemFailures: true,
            // Caps parallel work (and so the burst a bulk import can cause downstream); messages wait.
            maxConcurrency: trigger.maxConcurrency,
          }),
        );
        // After the mapping exists: the suppression is applied to the function's children as they are now.
        NagSuppressions.addResourceSuppressions(
          service.fn,
          [
            {
              id: 'Serverless-LambdaEventSourceMappingDestination',
              reason:
                'An SQS event source mapping has no on-failure destination (Lambda supports them for streams ' +
                `and Kafka only): a message that keeps failing moves to the ${trigger.queue} queue's ` +
                'dead-letter queue through its redrive policy after five receives.',
            },
          ],
          true,
        );
        if (trigger.queue === 'webhooks') this.webhookLadder.attachWorker(service);
        return;
      }
      case 'schedule': {
        new Rule(this, `${constructIdOf(row.name)}Schedule`, {
          description: trigger.summary,
          schedule: Schedule.cron({ minute: trigger.cron.minute, hour: trigger.cron.hour }),
          targets: [
            new LambdaFunction(service.fn, {
              retryAttempts: 2,
              maxEventAge: Duration.hours(2),
              deadLetterQueue: this.#scheduleDeadLetterQueue(row),
            }),
          ],
        });
        return;
      }
      default:
        throw new Error(`Worker ${row.name} has an unknown trigger ${String(trigger satisfies never)}`);
    }
  }

  /** Where a scheduled worker's failed runs land (EventBridge delivery and the function's own retries). */
  #scheduleDeadLetterQueue(row: WorkerDefinition): IQueue {
    if (row.name === 'aiResume') return this.aiResumeDeadLetterQueue;
    if (row.name === 'catalogueRebuild') return this.catalogueRebuildDeadLetterQueue;
    if (row.name === 'webhookSweeper') return this.webhookLadder.sweeperDeadLetterQueue;
    throw new Error(`Scheduled worker ${row.name} has no dead-letter queue in the async stack`);
  }
}

/** `aiWorker` → `AiWorker`: the construct id, so that the logical ids stay those of the stage deployed. */
function constructIdOf(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The timeout of the worker a queue feeds: the queue's visibility timeout is six times it. */
function consumerTimeoutSeconds(queue: WorkerQueue): number {
  const row = workers.find((w) => w.trigger.kind === 'queue' && w.trigger.queue === queue);
  if (!row) throw new Error(`No worker of functions/workers.ts is fed from the ${queue} queue`);
  return row.timeoutSeconds;
}
