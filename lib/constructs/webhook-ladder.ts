import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { deadLetterQueue, workQueue } from './queues.ts';
import type { ServiceFunction } from './service-function.ts';

export interface WebhookLadderProps {
  /**
   * The delivery worker's hard stop per invocation: the queue's visibility timeout is six times it
   * (AWS's advice for Lambda consumers).
   */
  readonly workerTimeout: Duration;
}

/**
 * The webhook retry ladder (docs/events-and-webhooks.md): the delivery queue with its dead-letter
 * queue, and the EventBridge Scheduler group and role for retries more than 15 minutes out. The delivery worker
 * is a row of the worker table (functions/workers.ts); the async stack feeds it from `queue` and
 * binds what its row `uses` with `bindSender` and `bindScheduler`.
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
  /**
   * Schedule messages Scheduler could not send to the queue after its retries: a rung that never
   * fired. Alarmed on; its messages are delivery messages, redriven to `queue` as they are.
   */
  readonly scheduleDeadLetterQueue: Queue;
  /** Runs of the overdue-delivery sweeper that failed EventBridge's retries (its schedule's DLQ). */
  readonly sweeperDeadLetterQueue: Queue;
  readonly scheduleGroup: ScheduleGroup;
  readonly schedulerRole: Role;
  #worker: ServiceFunction | undefined;

  constructor(scope: Construct, id: string, props: WebhookLadderProps) {
    super(scope, id);
    const stack = Stack.of(this);

    const delivery = workQueue(
      this,
      { queue: 'Queue', deadLetterQueue: 'DeadLetterQueue' },
      {
        workerTimeout: props.workerTimeout,
        messages: 'deliveries',
        // Longer than the last rung of the ladder that SQS itself holds (15 minutes), with room to spare.
        retentionPeriod: Duration.days(4),
      },
    );
    this.queue = delivery.queue;
    this.deadLetterQueue = delivery.deadLetterQueue;
    this.scheduleDeadLetterQueue = deadLetterQueue(this, 'ScheduleDeadLetterQueue', {
      holds: 'delivery messages of rungs that never fired',
      destinationOf: "the ladder's Scheduler schedules",
    });
    this.sweeperDeadLetterQueue = deadLetterQueue(this, 'SweeperDeadLetterQueue', {
      holds: 'runs of the overdue-delivery sweeper that failed every retry',
      destinationOf: "the overdue-delivery sweeper's EventBridge target",
    });

    this.scheduleGroup = new ScheduleGroup(this, 'ScheduleGroup', { removalPolicy: RemovalPolicy.DESTROY });

    this.schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        // Only schedules of this account's group may use the role (confused-deputy guard). Scheduler
        // sends the schedule GROUP's ARN as aws:SourceArn (`…:schedule-group/<group>`), never the
        // schedule's: a condition on `…:schedule/<group>/*` matches nothing, and CreateSchedule refuses
        // the role (AWS's "Confused deputy prevention in EventBridge Scheduler").
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
        },
      }),
      description: 'EventBridge Scheduler: sends due webhook retries to the delivery queue, nothing else',
    });
    this.schedulerRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    // Scheduler sends a schedule it gave up on to its dead-letter queue with the schedule's role.
    this.schedulerRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [this.scheduleDeadLetterQueue.queueArn],
      }),
    );
  }

  /** The function the delivery queue feeds (the worker table's queue-`webhooks` row), once bound. */
  get worker(): ServiceFunction {
    if (!this.#worker) throw new Error('No worker is fed from the webhook queue (functions/workers.ts)');
    return this.#worker;
  }

  /** Lets `fn` put deliveries on the queue (`WEBHOOK_QUEUE_URL`, `sqs:SendMessage`): its `webhookQueue` use. */
  bindSender(fn: ServiceFunction): void {
    fn.bindQueue(this.queue, 'WEBHOOK_QUEUE_URL');
  }

  /**
   * Lets `fn` schedule a later rung (its `webhookSchedules` use): the queue's ARN, the group and the
   * role in its environment, `scheduler:CreateSchedule` in this group only, and `iam:PassRole` of
   * the scheduler role to Scheduler only.
   */
  bindScheduler(fn: ServiceFunction): void {
    fn.fn.addEnvironment('WEBHOOK_QUEUE_ARN', this.queue.queueArn);
    fn.fn.addEnvironment('WEBHOOK_SCHEDULE_GROUP', this.scheduleGroup.scheduleGroupName);
    fn.fn.addEnvironment('WEBHOOK_SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    fn.fn.addEnvironment('WEBHOOK_SCHEDULE_DLQ_ARN', this.scheduleDeadLetterQueue.queueArn);
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        resources: [this.scheduleGroupSchedulesArn()],
      }),
    );
    fn.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    NagSuppressions.addResourceSuppressions(
      fn.role,
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
  }

  /** Records `fn` as the worker the queue feeds (the async stack adds the event source). */
  attachWorker(fn: ServiceFunction): void {
    if (this.#worker) throw new Error('The webhook queue already feeds a worker');
    this.#worker = fn;
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
