import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

/** What the delivery worker receives: which delivery, and which message of it this is. */
export const DeliveryMessage = z.object({
  tenantId: z.string(),
  endpointId: z.string(),
  deliveryId: z.string(),
  trigger: z.enum(['auto', 'manual', 'test']),
  /** `auto`: the delivery's scheduleToken when queued; `manual`/`test`: the send request id. */
  token: z.string(),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessage>;

/** The name of the local stack's webhook queue (a table-backed stand-in for the SQS queue). */
export const LOCAL_WEBHOOK_QUEUE = 'webhooks';

/** SQS holds a message back at most 15 minutes; a later attempt is an EventBridge Scheduler schedule. */
export const MAX_SQS_DELAY_SECONDS = 900;

/**
 * The longest wait the ladder leaves to a queue delay, when its waits are multiplied by `delayScale`
 * (RETRY_DELAY_SCALE): the 15 minutes of SQS shrink by the same factor, so that a shrunk ladder (the
 * local stack, the soak) sends the same rungs through the Scheduler as the real one does: 1 and
 * 5 minutes on the queue, 30 minutes and longer on a schedule. Never more than SQS's own limit: a
 * scale above 1 must not ask SQS for a delay it cannot hold.
 */
export function sqsDelayLimitMs(delayScale: number): number {
  return MAX_SQS_DELAY_SECONDS * 1000 * Math.min(1, delayScale);
}

/** Whether a wait of `delayMs` (already scaled by `delayScale`) is a Scheduler schedule rather than a queue delay. */
export function usesScheduler(delayMs: number, delayScale: number): boolean {
  return delayMs > sqsDelayLimitMs(delayScale);
}

/** Puts a delivery message on the delivery queue, now or after a delay (a rung of the ladder). */
export interface WebhookLadderPort {
  enqueue(message: DeliveryMessage, delayMs: number): Promise<void>;
}

export interface AwsLadderSettings {
  queueUrl: string;
  /** Needed only to schedule an attempt more than 15 minutes away. */
  queueArn?: string | undefined;
  scheduleGroup?: string | undefined;
  /** The role EventBridge Scheduler assumes to send to the queue (and can do nothing else). */
  schedulerRoleArn?: string | undefined;
  /**
   * Where Scheduler puts a schedule's message it could not send after its retries:
   * a rung that never fires is kept there and alarmed on, instead of leaving its delivery pending.
   */
  scheduleDeadLetterArn?: string | undefined;
  /** RETRY_DELAY_SCALE, which shrinks the boundary between a queue delay and a schedule. @default 1 */
  delayScale?: number | undefined;
}

// Loaded on first send: a function that binds the ladder and never retries pays nothing for them.
const sqs = lazyClient(
  () => import('@aws-sdk/client-sqs'),
  ({ SQSClient }) => new SQSClient(clientDefaults()),
);
const scheduler = lazyClient(
  () => import('@aws-sdk/client-scheduler'),
  ({ SchedulerClient }) => new SchedulerClient(clientDefaults()),
);

/**
 * The ladder on AWS: a wait up to 15 minutes (× `delayScale`, 1 in AWS: `usesScheduler`) is an SQS
 * `DelaySeconds`; a longer one is a one-time EventBridge Scheduler schedule in its own group that
 * sends the message to the same queue and deletes itself afterwards. The schedule is named after the message's token, so queuing the same
 * message twice makes one schedule (the second gets ConflictException, which is success here).
 */
export class AwsWebhookLadder implements WebhookLadderPort {
  readonly #settings: AwsLadderSettings;
  readonly #clients: { sqs?: SQSClient; scheduler?: SchedulerClient };
  /** `clients`: the SDK clients to send with (tests); by default one of each per container, made on first use. */
  constructor(settings: AwsLadderSettings, clients: { sqs?: SQSClient; scheduler?: SchedulerClient } = {}) {
    if (!settings.queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set');
    this.#settings = settings;
    this.#clients = clients;
  }

  async enqueue(message: DeliveryMessage, delayMs: number): Promise<void> {
    const body = JSON.stringify(message);
    if (!usesScheduler(delayMs, this.#settings.delayScale ?? 1)) {
      const delaySeconds = Math.max(0, Math.ceil(delayMs / 1000));
      const [{ SendMessageCommand }, shared] = await sqs();
      await (this.#clients.sqs ?? shared).send(
        new SendMessageCommand({
          QueueUrl: this.#settings.queueUrl,
          MessageBody: body,
          DelaySeconds: delaySeconds,
        }),
      );
      return;
    }
    const { queueArn, scheduleGroup, schedulerRoleArn, scheduleDeadLetterArn } = this.#settings;
    if (!queueArn || !scheduleGroup || !schedulerRoleArn || !scheduleDeadLetterArn) {
      throw new Error(
        'WEBHOOK_QUEUE_ARN, WEBHOOK_SCHEDULE_GROUP, WEBHOOK_SCHEDULER_ROLE_ARN and WEBHOOK_SCHEDULE_DLQ_ARN ' +
          'must be set to schedule a retry',
      );
    }
    // `at()` takes a date-time without zone or fraction (the zone is given apart, UTC): rounded up to
    // the second, so the attempt is never made early.
    const at = new Date(Math.ceil((Date.now() + delayMs) / 1000) * 1000).toISOString().slice(0, 19);
    const [{ ConflictException, CreateScheduleCommand }, shared] = await scheduler();
    try {
      await (this.#clients.scheduler ?? shared).send(
        new CreateScheduleCommand({
          Name: scheduleName(message),
          GroupName: scheduleGroup,
          ScheduleExpression: `at(${at})`,
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: queueArn,
            RoleArn: schedulerRoleArn,
            Input: body,
            RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
            DeadLetterConfig: { Arn: scheduleDeadLetterArn },
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
    }
  }
}

/** A schedule name (≤ 64 of `[0-9A-Za-z_.-]`) unique per queued message. */
export function scheduleName(message: DeliveryMessage): string {
  return `webhook-${message.token}`.replace(/[^0-9A-Za-z_.-]/g, '').slice(0, 64);
}

/**
 * Builds the AWS adapter from the function's environment; a missing queue URL throws (the scheduling
 * settings are checked when a retry more than 15 minutes out is scheduled).
 */
export function awsLadderFromEnvironment(env: NodeJS.ProcessEnv = process.env): WebhookLadderPort {
  return new AwsWebhookLadder({
    queueUrl: required(env.WEBHOOK_QUEUE_URL, 'WEBHOOK_QUEUE_URL', 'webhook ladder'),
    queueArn: env.WEBHOOK_QUEUE_ARN,
    scheduleGroup: env.WEBHOOK_SCHEDULE_GROUP,
    schedulerRoleArn: env.WEBHOOK_SCHEDULER_ROLE_ARN,
    scheduleDeadLetterArn: env.WEBHOOK_SCHEDULE_DLQ_ARN,
    // The scale the delivery service multiplies the waits by (1 in AWS: the stack does not set it).
    delayScale: config().RETRY_DELAY_SCALE,
  });
}

const port = definePort<WebhookLadderPort>('webhook ladder');

/** The ladder bound to this process: AWS in Lambda, the local queue in `npm start` and the tests. */
export function webhookLadder(): WebhookLadderPort {
  return port.get();
}

/**
 * Binds the AWS ladder (the Lambda entry of a row that `uses` webhookQueue); WEBHOOK_QUEUE_URL is
 * required on first use.
 */
export function bindAwsAdapter(): void {
  port.bindAws(() => awsLadderFromEnvironment());
}

/** Binds the ladder (the local stack and tests); `undefined` unbinds it. */
export function setWebhookLadder(next: WebhookLadderPort | undefined): void {
  port.bind(next);
}
