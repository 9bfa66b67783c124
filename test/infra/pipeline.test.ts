import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServiceApp } from '../../lib/app.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

type Json = Record<string, unknown>;

/**
 * The stream consumer's row, changed from what the stack used to hard-code, so that the event source
 * mapping shows whether it follows the row (one source for the AWS mapping and the local poller).
 */
const STREAM_ROW = vi.hoisted(() => ({ batchSize: 37, retryAttempts: 4, maxRecordAgeSeconds: 7200 }));

let service: ServiceApp;
let template: Template;

// The infra files share their workers' modules (isolate: false, vitest.config.ts), so the app is built
// from a fresh module graph with the changed row, and the graph is dropped again after the file.
beforeAll(async () => {
  vi.resetModules();
  vi.doMock('../../functions/workers.ts', async (importOriginal) => {
    const original = await importOriginal<typeof import('../../functions/workers.ts')>();
    return {
      ...original,
      workers: original.workers.map((row) =>
        row.trigger.kind === 'stream' ? { ...row, trigger: { ...row.trigger, ...STREAM_ROW } } : row,
      ),
    };
  });
  const { buildApp } = await import('../../lib/app.ts');
  service = buildApp({ stage: 'test', bundle: false, context: DEPLOY_CONTEXT });
  template = Template.fromStack(service.async);
}, 300_000); // a synth of every stack; slow on a busy 2-core machine
afterAll(() => {
  vi.doUnmock('../../functions/workers.ts');
  vi.resetModules();
});

const queueId = (queue: Queue) => service.async.getLogicalId(queue.node.defaultChild as CfnQueue);

describe("the stream consumer's event source mapping", () => {
  it("takes batch size, retries, record age, bisect and partial batch responses from the worker table's row", () => {
    // Act
    const id = service.async.getLogicalId(service.async.streamConsumer.fn.node.defaultChild as CfnFunction);
    const [mapping] = Object.values(
      template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: id } },
      }),
    );
    // Assess
    expect(mapping?.Properties).toMatchObject({
      BatchSize: 37,
      MaximumRetryAttempts: 4,
      MaximumRecordAgeInSeconds: 7200,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      StartingPosition: 'TRIM_HORIZON',
    });
  });
});

describe('the webhook ladder loses no rung unnoticed', () => {
  const alarms = () =>
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Json);

  it("alarms on the depth of the schedules' dead-letter queue and of the sweeper's", () => {
    // Prepare
    const ladder = service.async.webhookLadder;
    const ids = [queueId(ladder.scheduleDeadLetterQueue), queueId(ladder.sweeperDeadLetterQueue)];
    // Act
    const depthAlarms = alarms().filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    // Assess
    for (const id of ids) {
      expect(
        depthAlarms.some((a) => JSON.stringify(a.Dimensions).includes(`"${id}"`)),
        id,
      ).toBe(true);
    }
  });

  it('runs the sweeper every 15 minutes, with its failed runs kept, and alarms on what it re-queues', () => {
    // Prepare
    const sweeper = service.async.worker('webhookSweeper');
    const fnId = service.async.getLogicalId(sweeper.fn.node.defaultChild as CfnFunction);
    // Act
    const rules = Object.values(template.findResources('AWS::Events::Rule')).map((r) => r.Properties as Json);
    const rule = rules.find((r) => JSON.stringify(r.Targets).includes(`"${fnId}"`));
    const swept = alarms().find((a) => a.MetricName === 'WebhookDeliveriesSwept');
    // Assess
    expect(rule?.ScheduleExpression).toBe('cron(0/15 * * * ? *)');
    expect(JSON.stringify(rule?.Targets)).toContain(
      queueId(service.async.webhookLadder.sweeperDeadLetterQueue),
    );
    expect(swept).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
  });
});
