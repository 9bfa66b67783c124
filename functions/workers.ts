/**
 * THE worker table: every function that is not an HTTP route is one row, as every route is one row
 * of functions/routes.ts. CDK builds one function per row with its trigger, table access and `uses`
 * (lib/stacks/async-stack.ts), the local stack runs each row's handler on its local trigger
 * (scripts/local/start.ts), the bench bundles each row (scripts/bench/sections/cold-start.ts), and
 * the tests name each worker's recorded AWS operations by its `entry` (test/infra/permissions.test.ts).
 * A new worker is a new row (and, for a new queue, the queue in the async stack).
 */

/**
 * What a worker calls besides the table; CDK grants exactly these and nothing else.
 * - `aiQueue`: sends to the AI queue (`AI_QUEUE_URL`, `sqs:SendMessage`);
 * - `bedrock`: calls the AI model (`AI_MODEL_ID`, `bedrock:InvokeModel` on it, and its prices);
 * - `email`: sends email through SES (`EMAIL_FROM`, `ses:SendEmail` on the sender's identity);
 * - `webhookQueue`: puts a delivery on the webhook delivery queue (`WEBHOOK_QUEUE_URL`, `sqs:SendMessage`);
 * - `webhookSchedules`: schedules a later rung of the webhook ladder with EventBridge Scheduler
 *   (`scheduler:CreateSchedule` in the ladder's group, `iam:PassRole` of the scheduler role);
 * - `photoImport`: reads and keeps originals under the photo bucket's `originals/`, stores renditions
 *   under `images/` (`PHOTO_BUCKET`, `PHOTO_BASE_URL`; `s3:GetObject` on `originals/`,
 *   `s3:PutObject` and `s3:DeleteObject` on both);
 * - `photoCdn`: invalidates a deleted photo's paths on the photo distribution (`PHOTO_DISTRIBUTION_ID`,
 *   `cloudfront:CreateInvalidation` on that distribution);
 * - `catalogueWrite`: reads and writes the Tenants' catalogue snapshots (`CATALOGUE_BUCKET`;
 *   `s3:GetObject` and `s3:PutObject` under `catalogue/`, `s3:ListBucket`).
 *
 * test/infra/uses.test.ts checks that every port a worker's bundle reaches is declared here.
 */
export type WorkerUse =
  | 'aiQueue'
  | 'bedrock'
  | 'email'
  | 'webhookQueue'
  | 'webhookSchedules'
  | 'photoImport'
  | 'photoCdn'
  | 'catalogueWrite';

/**
 * The DynamoDB actions a function (a worker here, a route through lib/) may be granted on the table
 * (`dynamodb:Query` also on its indexes). A closed list on purpose: no `dynamodb:*`, and no `Scan`
 * (nothing on a request path may scan the table: a Scan reads every Tenant's items). A transaction
 * has no action of its own: IAM checks each of its items as Put/Update/Delete/ConditionCheckItem
 * (GetItem to read).
 */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:Query'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:ConditionCheckItem';

/** The local queues (the table-backed stand-ins) and the SQS queues of the async stack, by name. */
export type WorkerQueue = 'ai' | 'webhooks' | 'images';

/** What invokes a worker. */
export type WorkerTrigger =
  /**
   * The table's stream, filtered to the entities of functions/data/stream-entities.ts, with its
   * event source mapping's settings (read from the start of each shard, one batch at a time per shard).
   */
  | {
      readonly kind: 'stream';
      /** Records per invocation. */
      readonly batchSize: number;
      /** The handler reports failed records; Lambda retries from the lowest one (the checkpoint). */
      readonly reportBatchItemFailures: boolean;
      /** A batch whose invocation fails (throws, times out) is split in two and each half retried. */
      readonly bisectBatchOnError: boolean;
      /** Retries of a failing batch before it is sent to the on-failure destination and skipped. */
      readonly retryAttempts: number;
      /** Older records are not processed but sent to the on-failure destination. */
      readonly maxRecordAgeSeconds: number;
    }
  /** A queue; the worker reports the messages that failed (partial batch responses). */
  | {
      readonly kind: 'queue';
      readonly queue: WorkerQueue;
      /** Messages per invocation. */
      readonly batchSize: number;
      /** Most invocations at once (the event source mapping's `maxConcurrency`). */
      readonly maxConcurrency: number;
      /** Receives of a message before the queue's redrive policy moves it to its dead-letter queue. */
      readonly maxReceiveCount: number;
      /**
       * How often the local stack polls the queue when it is empty.
       * @default the local poller's default
       */
      readonly localPollMs?: number;
    }
  /** A schedule (EventBridge, UTC); locally the job runs at start and then every `localEveryMs`. */
  | {
      readonly kind: 'schedule';
      readonly cron: { readonly minute: string; readonly hour: string };
      /** The schedule rule's description. */
      readonly summary: string;
      readonly localEveryMs: number;
    };

/** One row of the worker table. */
export interface WorkerDefinition {
  /** The function's name in the stacks, the bench and the logs (`aiWorker`). */
  readonly name: string;
  /** The handler module, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Shown next to the function in the console. */
  readonly description: string;
  readonly trigger: WorkerTrigger;
  /** What it does on the table; `dynamodb:Query` is granted on `indexes` too. */
  readonly table: {
    readonly actions: readonly TableAction[];
    /** The indexes it queries: named ones, or `all` of the table's. */
    readonly indexes: 'all' | readonly string[];
  };
  /** AWS services it calls besides the table (see `WorkerUse`). */
  readonly uses: readonly WorkerUse[];
  /** Hard stop for one invocation. */
  readonly timeoutSeconds: number;
  /**
   * Memory. Workers wait on I/O (Bedrock, DynamoDB, SQS, receivers) nearly all of their run and
   * nobody waits for their cold start, so half of an API function's 1024 MB halves the GB-seconds
   * billed for the same wall time.
   * @default 512
   */
  readonly memoryMb?: number;
  /**
   * The function's processor. arm64 (Graviton) for every function but one that ships a native package
   * whose arm64 build this machine cannot install (`nativeModules`): see docs/architecture.md, Memory.
   * @default 'arm64'
   */
  readonly architecture?: 'arm64' | 'x86_64';
  /**
   * Native packages the function loads (`sharp`): left out of the esbuild bundle and copied into the
   * asset's `node_modules` with their Linux build for `architecture` (lib/bundling.ts).
   * @default - none
   */
  readonly nativeModules?: readonly 'sharp'[];
  /**
   * Lambda's recursive loop detection. A worker that sends to the queue that invokes it (the next page
   * of a run, the next attempt of a retry ladder) makes a chain of invocations, which Lambda stops
   * after about 16 by default, sending the message to the queue's dead-letter queue. `allow` lets the
   * chain go on: only for a worker whose own logic ends it (a checkpoint that reaches the end, a
   * bounded number of attempts), said in a comment on its row.
   * @default 'terminate'
   */
  readonly recursiveLoop?: 'allow' | 'terminate';
}

/** Key reads, batches of them, and queries. */
const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

export const workers = [
  {
    name: 'streamConsumer',
    entry: 'functions/streams/consumer.ts',
    description: 'DynamoDB stream consumer: records events, fans webhooks out, reacts (emails, AI work)',
    trigger: {
      kind: 'stream',
      batchSize: 100,
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAgeSeconds: 6 * 3600,
    },
    // Reads what a change refers to; puts events and webhook deliveries; disables (UpdateItem) an
    // endpoint whose subscribing key is revoked or expired when an event would fan out to it.
    table: { actions: [...READ, 'dynamodb:PutItem', 'dynamodb:UpdateItem'], indexes: 'all' },
    // Sends each requested enrichment and scoring request to the AI queue, each webhook delivery to
    // its queue, and the owner notifications (functions/streams/reactions) through SES.
    uses: ['aiQueue', 'webhookQueue', 'email'],
    // A batch of 100 records, each reading what it refers to, fanning out to every subscribed endpoint
    // (side by side: one round of writes and sends however many endpoints) and sending its emails and
    // AI requests, in order. 60 s left a Tenant with many endpoints and a throttled SES or SQS timing the
    // whole batch out: a timeout retries the batch (bisected), repeating its sends.
    timeoutSeconds: 180,
  },
  {
    name: 'aiWorker',
    entry: 'functions/workers/ai.ts',
    description: 'AI worker: enriches listings with Amazon Bedrock',
    // One message per invocation: a message is one model call (up to 4,000 output tokens, well under
    // a minute), so a slow or throttled call can only time out its own message, never put a batch of
    // finished ones back on the queue to be charged and run again. At most 10 at once caps parallel
    // Bedrock calls (and the burst a bulk import can cause against the model's quota and the bill).
    trigger: { kind: 'queue', queue: 'ai', batchSize: 1, maxConcurrency: 10, maxReceiveCount: 5 },
    // Key reads (Tenant, listing, the month's AI spend) and updates (the listing, conditioned on its
    // request id; the spend counter). Queries for Lead scoring: the Lead with its criteria, inquiries
    // and activities (gsi1, gsi2); for a resume page, the Tenant's listings (gsi1). A score is written in the Lead's transaction: the Lead put, its
    // search tokens put and deleted, claims checked.
    table: {
      actions: [
        ...READ,
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
      ],
      indexes: ['gsi1', 'gsi2'],
    },
    // Calls the model; the retry ladder re-sends a failed request to its own queue, with a delay, and
    // a resume page queues the next one.
    uses: ['aiQueue', 'bedrock'],
    // Leaves room for the SDK's retries of a throttled call.
    timeoutSeconds: 300,
    // A Tenant's resume run is one message per page of its listings (RESUME_PAGE_LISTINGS, 500), each
    // sent by this worker to its own queue: past 16 pages (8,000 listings) Lambda's loop detection
    // would stop the run and dead-letter its next page. The chain ends by itself: each page moves the
    // checkpoint on and the last one sends nothing; an enrichment's retry ladder is bounded by its
    // attempts (`retryDelaySeconds`, functions/domain/enrichment.ts: four at most).
    recursiveLoop: 'allow',
  },
  {
    name: 'aiResume',
    entry: 'functions/workers/ai-resume.ts',
    description: 'Daily job: resumes AI enrichments paused by a spend ceiling once the month resets',
    // A new month resets every Tenant's AI spend, so enrichments paused by the ceiling resume.
    trigger: {
      kind: 'schedule',
      cron: { minute: '15', hour: '0' },
      summary: 'Resume AI enrichments paused by the monthly spend ceiling',
      localEveryMs: 3_600_000,
    },
    // Lists the Tenants (gsi2) and fans out: one resume message per Tenant on the AI queue, whose
    // worker pages through that Tenant's listings with a checkpoint (a message per page), so the job
    // finishes however many listings the Tenants hold.
    table: { actions: ['dynamodb:Query'], indexes: ['gsi2'] },
    uses: ['aiQueue'],
    timeoutSeconds: 300,
  },
  {
    name: 'webhookDelivery',
    entry: 'functions/workers/webhook-delivery.ts',
    description: 'Webhook delivery worker: signed POSTs to receivers, retry ladder',
    // Messages of a batch are attempted side by side, each within the receivers' 10 s.
    trigger: {
      kind: 'queue',
      queue: 'webhooks',
      batchSize: 10,
      maxConcurrency: 20,
      maxReceiveCount: 5,
      localPollMs: 100,
    },
    // Reads the delivery and endpoint (GetItem), and logs attempts and failure counts (UpdateItem). No
    // PutItem: it never creates items.
    table: { actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], indexes: ['gsi1'] },
    // Re-queues a failed attempt (the next rung; a rung over 15 minutes is a schedule). The Tenant
    // Admins of an endpoint it disables are emailed by the stream consumer (the endpoint is the outbox).
    uses: ['webhookQueue', 'webhookSchedules'],
    // Covers a batch of 10 receivers at 10 s each, side by side, with room for the table writes.
    timeoutSeconds: 60,
  },
  {
    name: 'webhookSweeper',
    entry: 'functions/workers/webhook-sweeper.ts',
    description: 'Every 15 minutes: queues again webhook deliveries whose ladder rung was lost',
    // A rung SQS holds is at most 15 minutes late; a later one was lost.
    trigger: {
      kind: 'schedule',
      cron: { minute: '0/15', hour: '*' },
      summary: 'Queue again webhook deliveries overdue by more than 15 minutes',
      // The cron's 15 minutes, shrunk locally with the ladder it watches (RETRY_DELAY_SCALE, at least
      // 1 s: scripts/local/workers.ts, localPeriodMsOf), as its overdue threshold is.
      localEveryMs: 15 * 60_000,
    },
    // Lists the Tenants (gsi2) and their endpoints and pending deliveries (gsi1); hands each overdue
    // delivery to a new message (UpdateItem, conditioned on its token).
    table: { actions: ['dynamodb:Query', 'dynamodb:UpdateItem'], indexes: ['gsi1', 'gsi2'] },
    uses: ['webhookQueue'],
    timeoutSeconds: 300,
  },
  {
    name: 'imageImport',
    entry: 'functions/workers/image-import.ts',
    description:
      'Photo import worker: fetches photo URLs (SSRF-safe) or reads confirmed uploads, makes their renditions, adds them to galleries; invalidates deleted photos on the CDN',
    // One import per invocation (a fetch may take its whole 30 s, the renditions a few seconds); at
    // most 10 at once caps how many outside servers are fetched from in parallel.
    trigger: {
      kind: 'queue',
      queue: 'images',
      batchSize: 1,
      maxConcurrency: 10,
      maxReceiveCount: 5,
      localPollMs: 200,
    },
    // Reads the import and the listing; updates both (the import's state, the listing's gallery).
    table: { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], indexes: [] },
    uses: ['photoImport', 'photoCdn'],
    // From the bench's renditions (docs/bench.md, Retired: photos, a section that page says how to
    // run again; one libvips thread, a fresh process): a 24-megapixel JPEG takes 1.25 s of one core
    // at a peak of 246 MB resident, a 4,000 px PNG 0.8 s and 224 MB. 1,024 MB leaves four times
    // that peak for the largest file accepted (100 megapixels) and gives 0.58 of a vCPU: about 2.2
    // s a camera photo. Rendering is CPU-bound, so its GB-seconds are the same at any size up to
    // one vCPU (1,769 MB), while the fetch's wait costs less at a smaller one. 90 s: the fetch's 30
    // s, the renditions of a 100-megapixel file at 0.58 vCPU (about 15 s), the bucket and table
    // writes with the SDK's retries, twice over.
    timeoutSeconds: 90,
    memoryMb: 1024,
    // sharp's Linux build is installed for the machine npm runs on (x64 here and in CI); an arm64
    // function would need its arm64 build, which `npm ci` on x64 does not install.
    architecture: 'x86_64',
    nativeModules: ['sharp'],
  },
  {
    name: 'catalogueRebuild',
    entry: 'functions/workers/catalogue-rebuild.ts',
    description: 'Every minute: rewrites the catalogue snapshot of each Tenant whose listings changed',
    // The stream consumer marks a Tenant due 30 s after a listing change (debounced: one marker at a
    // time), so a snapshot is rewritten at most once a minute per Tenant, however many listings a
    // bulk import writes, and is current within about 90 s of the last change.
    trigger: {
      kind: 'schedule',
      cron: { minute: '*', hour: '*' },
      summary: 'Rewrite the catalogue snapshots of Tenants whose listings changed',
      localEveryMs: 5_000,
    },
    // Lists the due markers (Query), removes each (DeleteItem) or puts it back after a failure
    // (UpdateItem); reads the listings changed since the snapshot's watermark, or all of them (gsi1).
    table: { actions: ['dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'], indexes: ['gsi1'] },
    uses: ['catalogueWrite'],
    // A Tenant without a snapshot is read whole (50,000 listings: about 10 s locally), one after another.
    timeoutSeconds: 300,
    memoryMb: 1024,
  },
] as const satisfies readonly WorkerDefinition[];

export type WorkerName = (typeof workers)[number]['name'];

/** The row of worker `name`. */
export function workerFor(name: WorkerName): WorkerDefinition {
  const worker = workers.find((w) => w.name === name);
  if (!worker) throw new Error(`No worker ${name} in functions/workers.ts`);
  return worker;
}

/**
 * The visibility timeout of the queue feeding `row`: AWS's advice for Lambda consumers, six times the
 * function timeout, so that a message is not handed out again while a throttled or retried
 * invocation still holds it.
 */
export function visibilityTimeoutSeconds(row: WorkerDefinition): number {
  return row.timeoutSeconds * 6;
}

/** Worker memory when its row does not say. */
export const WORKER_MEMORY_MB = 512;
