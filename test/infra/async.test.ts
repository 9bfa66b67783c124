import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { STREAM_ENTITIES, STREAM_IGNORED_ENTITIES } from '../../functions/data/stream-entities.ts';
import { workerFor } from '../../functions/workers.ts';
import { aiModelFromContext, buildApp, type ServiceApp } from '../../lib/app.ts';
import { repoRoot, ServiceFunction } from '../../lib/constructs/service-function.ts';
import { DEFAULT_AI_MODEL, streamFilterPatterns, WORKER_MEMORY_MB } from '../../lib/stacks/async-stack.ts';
import { DEPLOY_CONTEXT, sharedTestApp } from './deploy-context.ts';
import { actionsOf, resourcesOf, statementsOf } from './iam-statements.ts';

type Json = Record<string, unknown>;

/** What any function holds besides its own grants: its log group, and the cursor key. */
const PLATFORM_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents', 'secretsmanager:GetSecretValue'];
/** What the SQS event source needs to receive and delete messages. */
const SQS_CONSUME_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
];

let service: ServiceApp;
let template: Template;

beforeAll(() => {
  // Prepare + Act: templates only, so the function code is not bundled.
  service = sharedTestApp();
  template = Template.fromStack(service.async);
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

function queueId(queue: Queue): string {
  return service.async.getLogicalId(queue.node.defaultChild as CfnQueue);
}

function functionId(fn: ServiceFunction): string {
  return service.async.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
}

function mappingOf(fn: ServiceFunction): Json {
  const mappings = Object.values(
    template.findResources('AWS::Lambda::EventSourceMapping', {
      Properties: { FunctionName: { Ref: functionId(fn) } },
    }),
  );
  expect(mappings).toHaveLength(1);
  return mappings[0]?.Properties as Json;
}

function functionProps(from: Template, stack: Stack, fn: ServiceFunction): Json {
  const id = stack.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
  return from.toJSON().Resources[id].Properties as Json;
}

/** The statements of the SSL-only policy attached to `queue`. */
function queuePolicyStatements(queue: Queue): Json[] {
  const id = queueId(queue);
  const policy = Object.values(template.findResources('AWS::SQS::QueuePolicy')).find((p) =>
    JSON.stringify(p.Properties.Queues).includes(`"${id}"`),
  );
  return (policy?.Properties.PolicyDocument.Statement ?? []) as Json[];
}

const denyWithoutTls = expect.objectContaining({
  Effect: 'Deny',
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
});

describe('the stream consumer', () => {
  it('reads the table stream from the start, reports partial failures and bounds its retries', () => {
    // Act
    const mapping = mappingOf(service.async.streamConsumer);

    // Assess
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
    });
    expect(mapping.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
    expect(mapping.MaximumRetryAttempts).toBeLessThanOrEqual(20);
    expect(mapping.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(24 * 3600);
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('StreamArn');
  });

  it('sends failed batches to an encrypted, SSL-only dead-letter queue', () => {
    // Prepare
    const dlqId = queueId(service.async.streamDeadLetterQueue);

    // Act
    const mapping = mappingOf(service.async.streamConsumer) as {
      DestinationConfig: { OnFailure: { Destination: unknown } };
    };

    // Assess
    expect(mapping.DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': [dlqId, 'Arn'] });
    expect(template.toJSON().Resources[dlqId].Properties.SqsManagedSseEnabled).toBe(true);
    expect(queuePolicyStatements(service.async.streamDeadLetterQueue)).toEqual(
      expect.arrayContaining([denyWithoutTls]),
    );
  });

  it('runs Node.js 24 on arm64 with its own log group; reads the table, creates webhook deliveries and disables the endpoints of dead keys', () => {
    // Prepare
    const consumer = service.async.streamConsumer;

    // Act
    const props = functionProps(template, service.async, consumer) as {
      Runtime: string;
      Architectures: string[];
      LoggingConfig: { LogGroup: { Ref: string } };
    };
    const logGroup = template.toJSON().Resources[props.LoggingConfig.LogGroup.Ref];
    const actions = statementsOf(template, service.async, consumer.role).flatMap(actionsOf);

    // Assess
    expect(props.Runtime).toBe('nodejs24.x');
    expect(props.Architectures).toEqual(['arm64']);
    expect(logGroup?.Properties.RetentionInDays).toBeGreaterThan(0);
    expect([...new Set(actions.filter((a) => a.startsWith('dynamodb:')))].sort()).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ].sort(),
    );
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('knows the AI and webhook queues and may only send to them (besides its own dead-letter queue)', () => {
    // Prepare
    const consumer = service.async.streamConsumer;
    const aiQueueArn = { 'Fn::GetAtt': [queueId(service.async.aiQueue), 'Arn'] };
    const dlqArn = { 'Fn::GetAtt': [queueId(service.async.streamDeadLetterQueue), 'Arn'] };

    // Act
    const statements = statementsOf(template, service.async, consumer.role);
    const sqsStatements = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    const env = (functionProps(template, service.async, consumer).Environment as { Variables: Json })
      .Variables;

    // Assess: (action, queue) pairs, however CDK merges statements.
    expect(env.AI_QUEUE_URL).toEqual({ Ref: queueId(service.async.aiQueue) });
    const webhookQueueArn = { 'Fn::GetAtt': [queueId(service.async.webhookLadder.queue), 'Arn'] };
    const pairs = sqsStatements.flatMap((s) =>
      actionsOf(s).flatMap((a) => resourcesOf(s).map((r) => [a, JSON.stringify(r)] as const)),
    );
    const actionsOn = (arn: unknown) =>
      pairs
        .filter(([, r]) => r === JSON.stringify(arn))
        .map(([a]) => a)
        .sort();
    expect(actionsOn(aiQueueArn)).toEqual(['sqs:SendMessage']);
    expect(actionsOn(webhookQueueArn)).toEqual(['sqs:SendMessage']);
    // The on-failure destination of the stream (granted by the event source).
    expect(actionsOn(dlqArn)).toEqual(
      ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'].sort(),
    );
    expect(actionsOn(aiQueueArn).length + actionsOn(webhookQueueArn).length + actionsOn(dlqArn).length).toBe(
      pairs.length,
    );
    expect(statements.flatMap(actionsOf)).not.toContain('bedrock:InvokeModel');
  });
});

describe('email from a worker in the SES sandbox', () => {
  it("may send as the sender alone: on the sender's identities, and on any identity (the sandbox's verified recipients) only with that sender", () => {
    // Prepare
    const consumer = service.async.streamConsumer;
    const identity = (name: string) =>
      `:ses:",{"Ref":"AWS::Region"},":",{"Ref":"AWS::AccountId"},":identity/${name}"`;

    // Act
    const ses = statementsOf(template, service.async, consumer.role)
      .filter((s) => actionsOf(s).includes('ses:SendEmail'))
      .map((s) => ({
        actions: actionsOf(s),
        resources: resourcesOf(s).map((r) => JSON.stringify(r)),
        condition: s.Condition,
      }));

    // Assess
    expect(ses).toHaveLength(2);
    const [onSender, onRecipients] = ses;
    expect(onSender?.actions).toEqual(['ses:SendEmail']);
    expect(onSender?.resources).toEqual([
      expect.stringContaining(identity('example.com')),
      expect.stringContaining(identity(DEPLOY_CONTEXT.emailFrom)),
    ]);
    expect(onSender?.condition).toBeUndefined();
    expect(onRecipients?.actions).toEqual(['ses:SendEmail']);
    expect(onRecipients?.resources).toEqual([expect.stringContaining(identity('*'))]);
    expect(onRecipients?.condition).toEqual({
      StringEquals: { 'ses:FromAddress': DEPLOY_CONTEXT.emailFrom },
    });
  });
});

/**
 * Lambda's event filtering on one record, for the patterns used here: nested keys, value lists,
 * anything-but, exists (a key whose parent is missing does not exist either).
 */
function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((rule) => {
      if (typeof rule === 'object' && rule !== null && 'anything-but' in rule)
        return (
          value !== undefined && !(rule as { 'anything-but': unknown[] })['anything-but'].includes(value)
        );
      if (typeof rule === 'object' && rule !== null && 'exists' in rule)
        return (value !== undefined) === (rule as { exists: boolean }).exists;
      return rule === value;
    });
  }
  if (typeof pattern !== 'object' || pattern === null) return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matchesPattern(inner, (value as Record<string, unknown> | undefined)?.[key]),
  );
}

/** The entity names of every ElectroDB entity file (`model: { …, entity: 'lead', … }`). */
function entityNames(): string[] {
  const dir = join(repoRoot, 'functions', 'data', 'entities');
  return readdirSync(dir)
    .flatMap((file) => [...readFileSync(join(dir, file), 'utf8').matchAll(/entity: '([A-Za-z]+)'/g)])
    .map((match) => match[1] as string);
}

describe('the stream consumer filter (cost)', () => {
  const record = (eventName: string, images: { NewImage?: string; OldImage?: string }) => ({
    eventName,
    dynamodb: {
      ...(images.NewImage ? { NewImage: { __edb_e__: { S: images.NewImage } } } : {}),
      ...(images.OldImage ? { OldImage: { __edb_e__: { S: images.OldImage } } } : {}),
    },
  });
  const invoked = (r: unknown, patterns: unknown[]) => patterns.some((p) => matchesPattern(p, r));
  /** Whether the consumer is invoked for an insert, a change and a removal of the entity's records. */
  const invokedOnEachChange = (entity: string, patterns: unknown[]) => ({
    INSERT: invoked(record('INSERT', { NewImage: entity }), patterns),
    MODIFY: invoked(record('MODIFY', { NewImage: entity, OldImage: entity }), patterns),
    REMOVE: invoked(record('REMOVE', { OldImage: entity }), patterns),
  });
  const onEveryChange = (invoked: boolean) => ({ INSERT: invoked, MODIFY: invoked, REMOVE: invoked });
  /** The filter patterns as synthesized on the consumer's event source mapping. */
  const synthesizedPatterns = (): unknown[] => {
    const mapping = mappingOf(service.async.streamConsumer) as {
      FilterCriteria: { Filters: { Pattern: string }[] };
    };
    return mapping.FilterCriteria.Filters.map((f) => JSON.parse(f.Pattern));
  };

  it('is on the event source mapping, one pattern per filter', () => {
    // Act
    const patterns = synthesizedPatterns();

    // Assess
    expect(patterns).toEqual(streamFilterPatterns());
  });

  it('never invokes the consumer for rate-limit, idempotency and other bookkeeping writes, or their TTL expiry', () => {
    // Prepare
    const patterns = synthesizedPatterns();

    // Act + Assess
    for (const entity of STREAM_IGNORED_ENTITIES) {
      expect(invokedOnEachChange(entity, patterns), entity).toEqual(onEveryChange(false));
    }
    expect(invoked(record('INSERT', {}), patterns)).toBe(false);
  });

  it('invokes it for every change of a record the service derives events from', () => {
    // Prepare
    const patterns = synthesizedPatterns();

    // Act + Assess
    for (const entity of STREAM_ENTITIES) {
      expect(invokedOnEachChange(entity, patterns), entity).toEqual(onEveryChange(true));
    }
  });

  it("never invokes the consumer for a TTL expiry, an event's or any other, but does for the service's own removal", () => {
    // Prepare
    const patterns = synthesizedPatterns();
    const ttlExpiry = (entity: string) => ({
      ...record('REMOVE', { OldImage: entity }),
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    });

    // Act + Assess
    expect(invoked(ttlExpiry('event'), patterns)).toBe(false);
    for (const entity of STREAM_ENTITIES) expect(invoked(ttlExpiry(entity), patterns), entity).toBe(false);
    expect(invoked(record('REMOVE', { OldImage: 'lead' }), patterns)).toBe(true);
    expect(invoked(record('INSERT', { NewImage: 'event' }), patterns)).toBe(true);
    expect(
      invoked(record('MODIFY', { NewImage: 'webhookDelivery', OldImage: 'webhookDelivery' }), patterns),
    ).toBe(true);
  });

  it('classifies every entity of functions/data/entities as bookkeeping or as a stream entity', () => {
    // Act: one name per entity (a legacy version kept for its deletes, leadSearchToken v1, shares it)
    const names = [...new Set(entityNames())];

    // Assess
    expect(names.length).toBeGreaterThan(10);
    expect([...names].sort()).toEqual([...STREAM_IGNORED_ENTITIES, ...STREAM_ENTITIES].sort());
  });
});

describe('the daily AI resume job', () => {
  it("has a dead-letter queue for EventBridge deliveries and for the function's own asynchronous retries", () => {
    // Prepare
    const dlqArn = { 'Fn::GetAtt': [queueId(service.async.aiResumeDeadLetterQueue), 'Arn'] };
    const [rule] = Object.values(template.findResources('AWS::Events::Rule'));

    // Act
    const target = ((rule?.Properties.Targets ?? []) as Json[])[0] as Json;
    const fn = functionProps(template, service.async, service.async.aiResume) as {
      DeadLetterConfig: { TargetArn: unknown };
    };
    const dlq = template.toJSON().Resources[queueId(service.async.aiResumeDeadLetterQueue)].Properties;

    // Assess
    expect(target.DeadLetterConfig).toEqual({ Arn: dlqArn });
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 7200 });
    expect(fn.DeadLetterConfig.TargetArn).toEqual(dlqArn);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    expect(queuePolicyStatements(service.async.aiResumeDeadLetterQueue)).toEqual(
      expect.arrayContaining([
        denyWithoutTls,
        expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' } }),
      ]),
    );
  });
});

describe('the queues (lib/constructs/queues.ts)', () => {
  it('keep the logical ids of the stages deployed: a new id would replace a queue and lose its messages', () => {
    // Act
    const ids = Object.keys(template.findResources('AWS::SQS::Queue')).sort();

    // Assess
    expect(ids).toEqual([
      'AiDeadLetterQueue58F1D9AE',
      'AiQueue264DCB43',
      'AiResumeDeadLetterQueue8A69D39E',
      'CatalogueRebuildDeadLetterQueue61B3849D',
      'ImageImportQueuesImportDeadLetterQueue385BE1D5',
      'ImageImportQueuesImportQueue6F4748F2',
      'StreamDeadLetterQueueDA607735',
      'WebhookLadderDeadLetterQueue82828E72',
      'WebhookLadderQueue0F613B30',
      'WebhookLadderScheduleDeadLetterQueue2B9243CB',
      'WebhookLadderSweeperDeadLetterQueueCB3FA252',
    ]);
  });
});

describe('the AI queue', () => {
  it('is encrypted, SSL-only, and redrives to a dead-letter queue after 5 receives', () => {
    // Prepare
    const resources = template.toJSON().Resources;

    // Act
    const queue = resources[queueId(service.async.aiQueue)].Properties;
    const dlq = resources[queueId(service.async.aiDeadLetterQueue)].Properties;

    // Assess
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [queueId(service.async.aiDeadLetterQueue), 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(queuePolicyStatements(service.async.aiQueue)).toEqual(expect.arrayContaining([denyWithoutTls]));
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    expect(dlq.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    expect(queuePolicyStatements(service.async.aiDeadLetterQueue)).toEqual(
      expect.arrayContaining([denyWithoutTls]),
    );
  });

  it('hides a received message for at least six times the worker timeout', () => {
    // Act
    const queue = template.toJSON().Resources[queueId(service.async.aiQueue)].Properties;
    const worker = functionProps(template, service.async, service.async.aiWorker);

    // Assess
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * (worker.Timeout as number));
  });
});

describe('the AI worker', () => {
  it('consumes the AI queue in small batches and reports partial batch failures', () => {
    // Act
    const mapping = mappingOf(service.async.aiWorker);

    // Assess
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [queueId(service.async.aiQueue), 'Arn'] });
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    // One message per invocation: a slow model call can only time out its own message.
    expect(mapping.BatchSize).toBe(1);
  });

  it('runs Node.js 24 on arm64 with the table, queue and model it needs in its environment', () => {
    // Act
    const props = functionProps(template, service.async, service.async.aiWorker) as {
      Runtime: string;
      Architectures: string[];
      MemorySize: number;
      Timeout: number;
      Environment: { Variables: Json };
    };

    // Assess
    expect(props.Runtime).toBe('nodejs24.x');
    expect(props.Architectures).toEqual(['arm64']);
    expect(props.MemorySize).toBe(WORKER_MEMORY_MB);
    expect(props.Timeout).toBeLessThanOrEqual(900);
    expect(Object.keys(props.Environment.Variables).sort()).toEqual(
      [
        'AI_MODEL_ID',
        'AI_PRICE_INPUT_PER_1K_USD',
        'AI_PRICE_OUTPUT_PER_1K_USD',
        'AI_QUEUE_URL',
        'CURSOR_SECRET_ARN',
        'LOG_LEVEL',
        'NODE_OPTIONS',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
        'TABLE_NAME',
      ].sort(),
    );
    expect(props.Environment.Variables).toMatchObject({
      AI_MODEL_ID: DEFAULT_AI_MODEL.modelId,
      AI_PRICE_INPUT_PER_1K_USD: String(DEFAULT_AI_MODEL.priceInputPer1kUsd),
      AI_PRICE_OUTPUT_PER_1K_USD: String(DEFAULT_AI_MODEL.priceOutputPer1kUsd),
      AI_QUEUE_URL: { Ref: queueId(service.async.aiQueue) },
    });
  });

  it('holds exactly the actions it needs: reads, queries, updates, its queue, and one model', () => {
    // Prepare
    const dataTemplate = Template.fromStack(service.data);
    const [tableLogicalId] = Object.keys(dataTemplate.findResources('AWS::DynamoDB::Table'));
    const aiQueueArn = JSON.stringify({ 'Fn::GetAtt': [queueId(service.async.aiQueue), 'Arn'] });

    // Act
    const statements = statementsOf(template, service.async, service.async.aiWorker.role);
    const actions = statements.flatMap(actionsOf);

    // Assess
    expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
    expect([...new Set(actions)].sort()).toEqual(
      [
        ...PLATFORM_ACTIONS,
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
        ...SQS_CONSUME_ACTIONS,
        'sqs:SendMessage',
        'bedrock:InvokeModel',
      ].sort(),
    );
    for (const statement of statements) {
      const resources = resourcesOf(statement).map((r) => JSON.stringify(r));
      const kinds = new Set(actionsOf(statement).map((a) => a.split(':')[0]));
      // Every table resource is the table or one of its named indexes; the AI queue alone.
      if (kinds.has('dynamodb')) {
        for (const resource of resources) expect(resource).toContain(`${tableLogicalId}Arn`);
      }
      if (kinds.has('sqs')) expect(resources).toEqual([aiQueueArn]);
    }
  });

  it('queries the table and gsi1 and gsi2 only (Lead scoring), and writes the table itself (the score transaction)', () => {
    // Act
    const tableStatements = statementsOf(template, service.async, service.async.aiWorker.role).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('dynamodb:')),
    );
    const onIndexes = tableStatements.filter((s) => JSON.stringify(s.Resource).includes('/index/'));
    const onTable = tableStatements.filter((s) => !JSON.stringify(s.Resource).includes('/index/'));
    const indexSuffixes = onIndexes
      .flatMap(resourcesOf)
      .map((r) => JSON.stringify(r).match(/"(\/index\/[^"]+)"/)?.[1]);

    // Assess
    expect(onTable.flatMap(resourcesOf)).toHaveLength(onTable.length);
    expect(onTable.flatMap(actionsOf).sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'dynamodb:PutItem',
        'dynamodb:DeleteItem',
        'dynamodb:ConditionCheckItem',
      ].sort(),
    );
    expect(onIndexes.flatMap(actionsOf)).toEqual(['dynamodb:Query']);
    expect(indexSuffixes.sort()).toEqual(['/index/gsi1', '/index/gsi2']);
  });

  it('may invoke the configured foundation model in its own region, and no other model', () => {
    // Act
    const bedrock = statementsOf(template, service.async, service.async.aiWorker.role).filter((s) =>
      actionsOf(s).includes('bedrock:InvokeModel'),
    );

    // Assess
    expect(bedrock).toHaveLength(1);
    expect(actionsOf(bedrock[0]!)).toEqual(['bedrock:InvokeModel']);
    expect(bedrock[0]?.Resource).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':bedrock:',
          { Ref: 'AWS::Region' },
          `::foundation-model/${DEFAULT_AI_MODEL.modelId}`,
        ],
      ],
    });
  });

  it('takes another model and its prices from context', () => {
    // Prepare
    const modelId = 'anthropic.claude-3-haiku-20240307-v1:0';
    const other = buildApp({
      stage: 'test',
      bundle: false,
      // As `-c` passes them: strings.
      context: {
        ...DEPLOY_CONTEXT,
        aiModelId: modelId,
        aiPriceInputPer1kUsd: '0.00025',
        aiPriceOutputPer1kUsd: '0.00125',
      },
    });

    // Act
    const otherTemplate = Template.fromStack(other.async);
    const env = (
      functionProps(otherTemplate, other.async, other.async.aiWorker).Environment as { Variables: Json }
    ).Variables;
    const resources = statementsOf(otherTemplate, other.async, other.async.aiWorker.role)
      .filter((s) => actionsOf(s).includes('bedrock:InvokeModel'))
      .flatMap(resourcesOf)
      .map((r) => JSON.stringify(r));

    // Assess
    expect(env).toMatchObject({
      AI_MODEL_ID: modelId,
      AI_PRICE_INPUT_PER_1K_USD: '0.00025',
      AI_PRICE_OUTPUT_PER_1K_USD: '0.00125',
    });
    expect(resources).toHaveLength(1);
    expect(resources[0]).toContain(`::foundation-model/${modelId}`);
    expect(resources[0]).not.toContain(DEFAULT_AI_MODEL.modelId);
  }, 300_000); // a synth of every stack; slow on a busy 2-core machine

  it('refuses another model without its prices, and ARNs or other non-ids as model ids', () => {
    // Prepare
    const withoutPrices = new App({ context: { aiModelId: 'anthropic.claude-3-haiku-20240307-v1:0' } });
    const badPrice = new App({ context: { aiPriceInputPer1kUsd: 'cheap' } });
    const bind = (modelId: string) => () => {
      const app = new App({ context: { [BUNDLING_STACKS]: [] } });
      const fn = new ServiceFunction(new Stack(app, 'Stack'), 'Fn', {
        entry: `${repoRoot}/functions/workers/ai.ts`,
      });
      fn.bindBedrockModel(modelId);
    };

    // Act + Assess
    expect(() => aiModelFromContext(withoutPrices)).toThrow(/aiPriceInputPer1kUsd/);
    expect(() => aiModelFromContext(badPrice, 'us-east-1')).toThrow(/non-negative number/);
    expect(aiModelFromContext(new App({ context: { aiModelId: DEFAULT_AI_MODEL.modelId } }))).toEqual(
      DEFAULT_AI_MODEL,
    );
    expect(bind('us.amazon.nova-lite-v1:0')).not.toThrow();
    expect(bind('global.anthropic.claude-haiku-4-5-20251001-v1:0')).not.toThrow();
    expect(bind('eu.us.amazon.nova-lite-v1:0')).toThrow(/neither a Bedrock foundation model id/);
    expect(bind('arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0')).toThrow(
      /neither a Bedrock foundation model id/,
    );
    expect(bind('*')).toThrow(/neither a Bedrock foundation model id/);
  });
});

describe('the photo import worker', () => {
  it('runs on x86_64 (sharp’s build npm installs here) with the memory and timeout of the bench, its queue visible six times that', () => {
    // Prepare
    const photos = service.async.worker('imageImport');
    const row = workerFor('imageImport');
    // Act
    const props = functionProps(template, service.async, photos) as {
      Architectures: string[];
      MemorySize: number;
      Timeout: number;
      Environment: { Variables: Json };
    };
    const queue = template.toJSON().Resources[queueId(service.async.imageImport.queue)].Properties as Json;
    // Assess
    expect(props.Architectures).toEqual(['x86_64']);
    expect([props.MemorySize, props.Timeout]).toEqual([row.memoryMb, row.timeoutSeconds]);
    // Four times the bench's peak resident size for a 24-megapixel photo (246 MB), for the largest file.
    expect(props.MemorySize).toBeGreaterThanOrEqual(4 * 246);
    expect(queue.VisibilityTimeout).toBe(row.timeoutSeconds * 6);
    expect(Object.keys(props.Environment.Variables)).toEqual(
      expect.arrayContaining(['PHOTO_BUCKET', 'PHOTO_BASE_URL', 'PHOTO_DISTRIBUTION_ID']),
    );
  });

  it('may invalidate the photo distribution and nothing else, and reads only originals/ of the bucket', () => {
    // Prepare
    const photos = service.async.worker('imageImport');
    // Act
    const statements = statementsOf(template, service.async, photos.role);
    const invalidation = statements.filter((s) => actionsOf(s).includes('cloudfront:CreateInvalidation'));
    const reads = statements.filter((s) => actionsOf(s).includes('s3:GetObject'));
    // Assess
    expect(invalidation).toHaveLength(1);
    const [resource] = resourcesOf(invalidation[0]!);
    expect(JSON.stringify(resource)).toMatch(/:distribution\/.*PhotoDistribution/);
    expect(JSON.stringify(resource)).not.toContain('*');
    expect(reads.flatMap(resourcesOf).map((r) => JSON.stringify(r))).toEqual([
      expect.stringMatching(/\/originals\/\*"\]\]\}$/),
    ]);
  });
});
