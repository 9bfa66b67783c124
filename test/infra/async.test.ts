import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ServiceApp } from '../../lib/app.ts';

let service: ServiceApp;
let template: Template;

beforeAll(() => {
  // Prepare + Act: templates only, so the function code is not bundled.
  service = buildApp({ stage: 'test', bundle: false });
  template = Template.fromStack(service.async);
});

describe('the stream consumer', () => {
  it('reads the table stream from the start, reports partial failures and bounds its retries', () => {
    // Prepare
    const mappings = template.findResources('AWS::Lambda::EventSourceMapping');

    // Act
    const [mapping] = Object.values(mappings);

    // Assess
    expect(Object.keys(mappings)).toHaveLength(1);
    expect(mapping?.Properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
    });
    expect(mapping?.Properties.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
    expect(mapping?.Properties.MaximumRetryAttempts).toBeLessThanOrEqual(20);
    expect(mapping?.Properties.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(24 * 3600);
    expect(JSON.stringify(mapping?.Properties.EventSourceArn)).toContain('StreamArn');
  });

  it('sends failed batches to an encrypted, SSL-only dead-letter queue', () => {
    // Prepare
    const queues = template.findResources('AWS::SQS::Queue');
    const [queueId] = Object.keys(queues);
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));

    // Act
    const policy = Object.values(template.findResources('AWS::SQS::QueuePolicy')).find((p) =>
      JSON.stringify(p.Properties.Queues).includes(`"${queueId}"`),
    );

    // Assess
    expect(mapping?.Properties.DestinationConfig.OnFailure.Destination).toEqual({
      'Fn::GetAtt': [queueId, 'Arn'],
    });
    expect(queues[queueId ?? '']?.Properties.SqsManagedSseEnabled).toBe(true);
    expect(policy?.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    );
  });

  it('runs Node.js 24 on arm64 with its own log group, and only reads the table', () => {
    // Prepare
    const consumer = service.async.streamConsumer;
    const roleId = service.async.getLogicalId(consumer.role.node.defaultChild as CfnRole);

    // Act
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    const actions = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .flatMap((s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

    // Assess
    expect(fn?.Properties.Runtime).toBe('nodejs24.x');
    expect(fn?.Properties.Architectures).toEqual(['arm64']);
    expect(logGroups[fn?.Properties.LoggingConfig.LogGroup.Ref]?.Properties.RetentionInDays).toBeGreaterThan(
      0,
    );
    expect([...new Set(actions.filter((a: string) => a.startsWith('dynamodb:')))].sort()).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetItem',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'dynamodb:Query',
      ].sort(),
    );
    expect(actions.filter((a: string) => a.includes('*'))).toEqual([]);
  });
});
