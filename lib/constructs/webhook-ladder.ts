import { join } from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { repoRoot, ServiceFunction } from './service-function.ts';

export interface WebhookLadderProps {
  /** The table holding endpoints and deliveries (pending retries live there too). */
  readonly table: ITable;
  /**
   * The stream consumer that fans events out: it gets `WEBHOOK_QUEUE_URL`, `sqs:SendMessage` on the
   * delivery queue, and `dynamodb:PutItem` to create deliveries.
   */
  readonly streamConsumer: ServiceFunction;
  /**
   * The verified SES sender of the email that tells Tenant Admins an endpoint was disabled.
   * @default - no sender: the worker cannot email (only acceptable in tests)
   */
  readonly emailFrom?: string;
  /**
   * The worker's hard stop per batch. Messages of a batch are attempted side by side, each within
   * the receivers' 10 s, so a minute covers a batch with room for the table writes.
   * @default Duration.seconds(60)
   */
  readonly workerTimeout?: Duration;
  /**
   * How many workers may deliver at once (and so how many receivers are called in parallel).
   * @default 20
   */
  readonly maxConcurrency?: number;
}

/**
 * The webhook delivery ladder (interface §6.3): the delivery queue with its dead-letter queue, the
 * delivery worker, and the EventBridge Scheduler group and role for retries more than 15 minutes out.
 *
 * - A retry due within 15 minutes goes back on the queue with `DelaySeconds`; a later one is a
 *   one-time schedule in `scheduleGroup` (deleted after it runs) whose target is the queue, sent
 *   through `schedulerRole`, which may do nothing but `sqs:SendMessage` to this queue.
 * - The worker reports only unexpected errors as batch failures; after 5 receives such a message is
 *   dead-lettered (`deadLetterQueue`: alarm on its depth).
 */
export class WebhookLadder extends Construct {
  readonly queue: Queue;
  /** Messages the worker failed on 5 times (a bug or an outage, not a failing receiver). */
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly scheduleGroup: ScheduleGroup;
  readonly schedulerRole: Role;

  constructor(scope: Construct, id: string, props: WebhookLadderProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const workerTimeout = props.workerTimeout ?? Duration.seconds(60);

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.deadLetterQueue, [
      {
        id: 'Serverless-SQSRedrivePolicy',
        reason:
          'This queue is a dead-letter queue: its messages are deliveries that failed five receives, kept for ' +
          'inspection and redrive, never consumed by a function, so there is no receive count to exceed.',
      },
    ]);
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the worker's timeout (AWS's advice for Lambda consumers).
      visibilityTimeout: Duration.seconds(workerTimeout.toSeconds() * 6),
      // Longer than the last rung of the ladder that SQS itself holds (15 minutes), with room to spare.
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });

    this.scheduleGroup = new ScheduleGroup(this, 'ScheduleGroup', { removalPolicy: RemovalPolicy.DESTROY });

    this.schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        // Only schedules of this account's group may use the role (confused-deputy guard).
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': this.scheduleGroupSchedulesArn() },
        },
      }),
      description: 'EventBridge Scheduler: sends due webhook retries to the delivery queue, nothing else',
    });
    this.schedulerRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );

    this.worker = new ServiceFunction(this, 'Worker', {
      entry: join(repoRoot, 'functions', 'workers', 'webhook-delivery.ts'),
      description: 'Webhook delivery worker: signed POSTs to receivers, retry ladder',
      timeout: workerTimeout,
      memorySize: 512,
    });
    // Reads the delivery and endpoint (GetItem), the Tenant Admins (Query on gsi1), and logs
    // attempts and failure counts (UpdateItem). No PutItem: it never creates items.
    this.worker.bindTable(props.table, {
      actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
      indexNames: ['gsi1'],
    });
    this.worker.bindQueue(this.queue, 'WEBHOOK_QUEUE_URL');
    this.worker.fn.addEnvironment('WEBHOOK_QUEUE_ARN', this.queue.queueArn);
    this.worker.fn.addEnvironment('WEBHOOK_SCHEDULE_GROUP', this.scheduleGroup.scheduleGroupName);
    this.worker.fn.addEnvironment('WEBHOOK_SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    this.worker.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        resources: [this.scheduleGroupSchedulesArn()],
      }),
    );
    this.worker.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    if (props.emailFrom) this.worker.bindEmailSender(props.emailFrom);
    NagSuppressions.addResourceSuppressions(
      this.worker.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Each retry is a schedule named after its message, so the worker creates schedules by name ' +
            "pattern; the grant is limited to schedules of this construct's own schedule group.",
          appliesTo: [{ regex: '/^Resource::arn:<AWS::Partition>:scheduler:.+:schedule\\/[^/]+\\/\\*$/g' }],
        },
      ],
      true,
    );
    this.worker.suppressFunctionRule(
      'Serverless-LambdaDLQ',
      'Invoked only by its SQS event source mapping, never asynchronously: a message that fails five ' +
        "receives moves to the ladder's DeadLetterQueue through the delivery queue's redrive policy.",
    );
    this.worker.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency ?? 20,
      }),
    );
    // After the mapping exists: the suppression is applied to the function's children as they are now.
    NagSuppressions.addResourceSuppressions(
      this.worker.fn,
      [
        {
          id: 'Serverless-LambdaEventSourceMappingDestination',
          reason:
            'An SQS event source mapping has no on-failure destination (Lambda supports them for streams ' +
            "and Kafka only): a message that keeps failing moves to the ladder's DeadLetterQueue through the " +
            "delivery queue's redrive policy after five receives.",
        },
      ],
      true,
    );

    props.streamConsumer.bindTable(props.table, { actions: ['dynamodb:PutItem'] });
    props.streamConsumer.bindQueue(this.queue, 'WEBHOOK_QUEUE_URL');
  }

  /** `arn:…:scheduler:<region>:<account>:schedule/<group>/*`: every schedule of the group. */
  private scheduleGroupSchedulesArn(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }
}
