import { ConflictException, CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextDelay, outcomeOf, RETRY_LADDER_MS } from '../../functions/domain/webhooks.ts';
import {
  AwsWebhookLadder,
  awsLadderFromEnvironment,
  type DeliveryMessage,
  sqsDelayLimitMs,
  usesScheduler,
} from '../../functions/kernel/ports/webhook-ladder.ts';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/webhook-deliveries';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:webhook-deliveries';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/webhook-scheduler';
const SCHEDULE_DLQ_ARN = 'arn:aws:sqs:us-east-1:123456789012:webhook-schedules-dlq';
const message: DeliveryMessage = {
  tenantId: 't1',
  endpointId: 'e1',
  deliveryId: 'd1',
  trigger: 'auto',
  token: '0123456789abcdef0123456789abcdef',
};

describe('nextDelay: the ladder as data', () => {
  it('waits 1m, 5m, 30m, 2h, 6h, 12h, 24h, 24h after failures 1 to 8, then gives up', () => {
    const minutes = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => (nextDelay(n, 'failed') ?? 0) / 60_000);
    expect(minutes).toEqual([1, 5, 30, 120, 360, 720, 1440, 1440]);
    expect(nextDelay(9, 'failed')).toBeNull();
    expect(RETRY_LADDER_MS.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(68.6, 1);
  });

  it('stops on success and on 410', () => {
    expect(nextDelay(1, 'succeeded')).toBeNull();
    expect(nextDelay(1, 'gone')).toBeNull();
  });

  it('classifies answers: any 2xx succeeds, 410 is gone, 3xx and errors fail', () => {
    expect([200, 204, 299].map(outcomeOf)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(outcomeOf(410)).toBe('gone');
    expect([301, 302, 307, 400, 500, null].map(outcomeOf)).toEqual(Array(6).fill('failed'));
  });
});

describe('AwsWebhookLadder', () => {
  const sqs = mockClient(SQSClient);
  const scheduler = mockClient(SchedulerClient);
  const settings = {
    queueUrl: QUEUE_URL,
    queueArn: QUEUE_ARN,
    scheduleGroup: 'webhook-retries',
    schedulerRoleArn: ROLE_ARN,
    scheduleDeadLetterArn: SCHEDULE_DLQ_ARN,
  };

  beforeEach(() => {
    sqs.reset();
    scheduler.reset();
    vi.useFakeTimers({ now: new Date('2026-01-02T03:04:05.678Z'), toFake: ['Date'] });
  });
  afterEach(() => vi.useRealTimers());
  // The unit files share their worker's modules (isolate: false): the next file gets the real clients.
  afterAll(() => {
    sqs.restore();
    scheduler.restore();
  });

  it('sends a due message at once', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    await new AwsWebhookLadder(settings, {
      sqs: new SQSClient({}),
      scheduler: new SchedulerClient({}),
    }).enqueue(message, 0);
    const input = sqs.commandCalls(SendMessageCommand)[0]?.args[0].input;
    expect(input).toEqual({ QueueUrl: QUEUE_URL, MessageBody: JSON.stringify(message), DelaySeconds: 0 });
    expect(scheduler.calls()).toHaveLength(0);
  });

  it('puts a retry due within 15 minutes back on the queue with DelaySeconds', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    const ladder = new AwsWebhookLadder(settings, {
      sqs: new SQSClient({}),
      scheduler: new SchedulerClient({}),
    });
    await ladder.enqueue(message, 5 * 60_000);
    await ladder.enqueue(message, 15 * 60_000);
    const delays = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.DelaySeconds);
    expect(delays).toEqual([300, 900]);
    expect(scheduler.calls()).toHaveLength(0);
  });

  it('makes a later retry a one-time schedule in its group, targeting the queue through the role, deleted after it runs', async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    await new AwsWebhookLadder(settings, {
      sqs: new SQSClient({}),
      scheduler: new SchedulerClient({}),
    }).enqueue(message, 30 * 60_000);
    expect(sqs.calls()).toHaveLength(0);
    const input = scheduler.commandCalls(CreateScheduleCommand)[0]?.args[0].input;
    expect(input).toMatchObject({
      Name: `webhook-${message.token}`,
      GroupName: 'webhook-retries',
      ScheduleExpression: 'at(2026-01-02T03:34:06)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: QUEUE_ARN,
        RoleArn: ROLE_ARN,
        Input: JSON.stringify(message),
        // A schedule Scheduler cannot send (role, quota, queue) lands on a dead-letter queue.
        DeadLetterConfig: { Arn: SCHEDULE_DLQ_ARN },
      },
    });
  });

  it('treats an existing schedule of the same message as done (a repeated enqueue)', async () => {
    scheduler
      .on(CreateScheduleCommand)
      .rejects(new ConflictException({ Message: 'exists', message: 'exists', $metadata: {} }));
    await expect(
      new AwsWebhookLadder(settings, { sqs: new SQSClient({}), scheduler: new SchedulerClient({}) }).enqueue(
        message,
        2 * 3_600_000,
      ),
    ).resolves.toBeUndefined();
  });

  it('at scale 1 keeps exactly 15 minutes on the queue and schedules one millisecond more', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    const ladder = new AwsWebhookLadder(
      { ...settings, delayScale: 1 },
      { sqs: new SQSClient({}), scheduler: new SchedulerClient({}) },
    );
    await ladder.enqueue(message, 900_000);
    await ladder.enqueue(message, 900_001);
    expect(sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.DelaySeconds)).toEqual([900]);
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(1);
  });

  it('shrinks the boundary with a scaled ladder: a scaled 5-minute rung is queued, a scaled 30-minute one scheduled', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    const scale = 0.0005;
    const ladder = new AwsWebhookLadder(
      { ...settings, delayScale: scale },
      { sqs: new SQSClient({}), scheduler: new SchedulerClient({}) },
    );
    await ladder.enqueue(message, 5 * 60_000 * scale);
    await ladder.enqueue(message, 30 * 60_000 * scale);
    expect(sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.DelaySeconds)).toEqual([1]);
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]?.args[0].input.ScheduleExpression).toBe(
      'at(2026-01-02T03:04:07)',
    );
  });

  it('throws without the scheduler settings rather than dropping a long retry', async () => {
    const ladder = new AwsWebhookLadder(
      { queueUrl: QUEUE_URL },
      { sqs: new SQSClient({}), scheduler: new SchedulerClient({}) },
    );
    await expect(ladder.enqueue(message, 2 * 3_600_000)).rejects.toThrow(/WEBHOOK_SCHEDULE_GROUP/);
  });
});

describe('the boundary between a queue delay and a schedule', () => {
  const rungs = (scale: number) => RETRY_LADDER_MS.map((wait) => usesScheduler(wait * scale, scale));

  it('sends the same rungs through the Scheduler at any scale: 1 and 5 minutes queued, 30 minutes and longer scheduled', () => {
    const real = [false, false, true, true, true, true, true, true];
    expect(rungs(1)).toEqual(real);
    expect(rungs(0.0005)).toEqual(real); // the soak's
    expect(rungs(0.0001)).toEqual(real); // test/slow/webhooks-stack.test.ts
  });

  it('is the 15 minutes of SQS at scale 1 and never more, however large the scale', () => {
    expect(sqsDelayLimitMs(1)).toBe(900_000);
    expect(sqsDelayLimitMs(0.0005)).toBe(450);
    expect(sqsDelayLimitMs(4)).toBe(900_000);
    expect(usesScheduler(20 * 60_000, 4)).toBe(true);
  });
});

describe('awsLadderFromEnvironment', () => {
  it('builds the AWS ladder, and a missing queue URL throws instead of falling back to local', () => {
    expect(() => awsLadderFromEnvironment({})).toThrow(/WEBHOOK_QUEUE_URL/);
    expect(awsLadderFromEnvironment({ WEBHOOK_QUEUE_URL: QUEUE_URL })).toBeInstanceOf(AwsWebhookLadder);
  });
});
