import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/data/table.ts';
import type { ServiceApp } from '../../lib/app.ts';
import { MAX_METRICS_PER_ALARM } from '../../lib/constructs/alarms.ts';
import { DEPLOY_CONTEXT, sharedTestApp } from './deploy-context.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON, navigated freely here.
type Json = Record<string, any>;

interface MetricQuery {
  Id: string;
  Expression?: string;
  MetricStat?: {
    Metric: { MetricName: string; Namespace: string; Dimensions: { Name: string; Value: unknown }[] };
  };
}

let service: ServiceApp;
/** Every stack, nested ones included, with its template. */
let stacks: { stack: Stack; template: Template }[];

beforeAll(() => {
  // Prepare + Act: templates only.
  service = sharedTestApp();
  stacks = service.app.node
    .findAll()
    .filter((c): c is Stack => Stack.isStack(c))
    .map((stack) => ({ stack, template: Template.fromStack(stack) }));
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

function alarmsOf(template: Template): Json[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as Json);
}

/** The metrics an alarm watches, whether it watches one metric or a math expression over several. */
function metricsOf(alarm: Json): { name: string; dimensions: Record<string, string> }[] {
  const dims = (list: { Name: string; Value: unknown }[] = []) =>
    Object.fromEntries(list.map((d) => [d.Name, JSON.stringify(d.Value)]));
  if (alarm.MetricName) return [{ name: alarm.MetricName, dimensions: dims(alarm.Dimensions) }];
  return ((alarm.Metrics ?? []) as MetricQuery[])
    .filter((q) => q.MetricStat)
    .map((q) => ({
      name: q.MetricStat!.Metric.MetricName,
      dimensions: dims(q.MetricStat!.Metric.Dimensions),
    }));
}

const asyncTemplate = () => Template.fromStack(service.async);

describe('the alarm topic', () => {
  it('is one KMS-encrypted, SSL-only topic emailing the alarmEmail deploy parameter', () => {
    // Prepare
    const template = asyncTemplate();

    // Act
    const topics = Object.values(template.findResources('AWS::SNS::Topic'));
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));
    const policies = Object.values(template.findResources('AWS::SNS::TopicPolicy'));
    const allTopics = stacks.flatMap(({ template: t }) => Object.keys(t.findResources('AWS::SNS::Topic')));

    // Assess
    expect(allTopics).toHaveLength(1);
    expect(topics[0]?.Properties.KmsMasterKeyId).toBeDefined();
    expect(subscriptions.map((s) => s.Properties)).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: DEPLOY_CONTEXT.alarmEmail }),
    ]);
    expect(JSON.stringify(policies)).toContain('aws:SecureTransport');
  });

  it("lets CloudWatch use the topic's key (alarms cannot publish to a topic under the AWS managed key)", () => {
    // Act
    const keys = Object.values(asyncTemplate().findResources('AWS::KMS::Key'));
    const statements = keys.flatMap((k) => k.Properties.KeyPolicy.Statement as Json[]);

    // Assess
    expect(keys).toHaveLength(1);
    expect(keys[0]?.Properties.EnableKeyRotation).toBe(true);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
  });

  it('receives every alarm of every stack, and its return to OK', () => {
    for (const { stack, template } of stacks) {
      for (const alarm of alarmsOf(template)) {
        // Assess
        expect(alarm.AlarmActions, `${stack.node.path} ${alarm.AlarmDescription}`).toHaveLength(1);
        expect(alarm.OKActions).toEqual(alarm.AlarmActions);
        expect(alarm.TreatMissingData).toBe('notBreaching');
      }
    }
    const inAsync = alarmsOf(asyncTemplate()).map((a) => JSON.stringify(a.AlarmActions));
    expect(new Set(inAsync).size).toBe(1);
    expect(inAsync[0]).toContain('AlarmTopic');
  });
});

describe('dead-letter queues', () => {
  it('every queue used as a dead letter anywhere (redrive, stream on-failure, function DLQ, event target DLQ) has a depth alarm', () => {
    // Prepare: every place a DLQ is named in the async stack.
    const template = asyncTemplate().toJSON();
    const resources = Object.values(template.Resources as Record<string, Json>);
    const named = JSON.stringify([
      resources.map((r) => r.Properties?.RedrivePolicy?.deadLetterTargetArn),
      resources.map((r) => r.Properties?.DestinationConfig?.OnFailure?.Destination),
      resources.map((r) => r.Properties?.DeadLetterConfig?.TargetArn),
      resources.flatMap((r) => (r.Properties?.Targets ?? []).map((t: Json) => t.DeadLetterConfig?.Arn)),
    ]);
    const dlqIds = Object.keys(template.Resources).filter(
      (id) => template.Resources[id].Type === 'AWS::SQS::Queue' && named.includes(`"${id}"`),
    );

    // Act
    const watched = alarmsOf(asyncTemplate())
      .filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible')
      .map((a) => ({ alarm: a, queue: JSON.stringify(a.Dimensions) }));

    // Assess
    // The stream's, the AI queue's, the daily job's, the webhook ladder's, the webhook sweeper's, the
    // catalogue rebuilder's and the photo import's (the ladder's schedules name theirs at
    // CreateSchedule: test/infra/pipeline.test.ts).
    expect(dlqIds.sort()).toHaveLength(7);
    for (const id of dlqIds) {
      const alarm = watched.find((w) => w.queue.includes(`"${id}"`))?.alarm;
      expect(alarm, id).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
    // And the ladder's schedules' dead-letter queue, named at CreateSchedule rather than in the template.
    expect(watched).toHaveLength(dlqIds.length + 1);
  });
});

describe('function groups', () => {
  it('every function of every stack is in an errors alarm and a throttles alarm of its own stack', () => {
    let functions = 0;
    for (const { stack, template } of stacks) {
      // Prepare
      const ids = Object.keys(template.findResources('AWS::Lambda::Function'));
      const watched = (metricName: string) =>
        alarmsOf(template)
          .flatMap(metricsOf)
          .filter((m) => m.name === metricName)
          .map((m) => m.dimensions.FunctionName);
      functions += ids.length;

      // Act
      const errors = watched('Errors');
      const throttles = watched('Throttles');

      // Assess
      for (const id of ids) {
        expect(errors, `${stack.node.path} ${id}`).toContain(JSON.stringify({ Ref: id }));
        expect(throttles, `${stack.node.path} ${id}`).toContain(JSON.stringify({ Ref: id }));
      }
    }
    expect(functions).toBeGreaterThan(25);
  });

  it('slices a group into alarms of at most 10 metrics (CloudWatch refuses more), summing them with missing data as 0', () => {
    // Prepare
    const leads = service.api.routeGroups.find((g) => g.groupId === 'Leads');

    // Act
    const alarms = alarmsOf(Template.fromStack(leads!)).filter((a) => a.Metrics);

    // Assess
    expect(leads!.functions.size).toBeGreaterThan(MAX_METRICS_PER_ALARM);
    for (const alarm of alarms) {
      const queries = alarm.Metrics as MetricQuery[];
      const stats = queries.filter((q) => q.MetricStat);
      const [expression] = queries.filter((q) => q.Expression);
      expect(stats.length).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
      for (const q of stats) expect(expression?.Expression).toContain(`FILL(${q.Id}, 0)`);
      expect(alarm.Threshold).toBe(0);
    }
    expect(alarms.length).toBe(2 * Math.ceil(leads!.functions.size / MAX_METRICS_PER_ALARM));
  });
});

describe('the stream consumer, the API and the table', () => {
  it("alarms on the stream consumer's iterator age", () => {
    // Prepare
    const consumerId = service.async.getLogicalId(service.async.streamConsumer.fn.node.defaultChild as never);

    // Act
    const alarm = alarmsOf(asyncTemplate()).find((a) => a.MetricName === 'IteratorAge');

    // Assess
    expect(alarm).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Maximum', Threshold: 300_000 });
    expect(alarm?.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: consumerId } }]);
  });

  it('alarms on the API 5xx rate (5xx over requests) and its p99 latency', () => {
    // Act
    const alarms = alarmsOf(Template.fromStack(service.api));
    const rate = alarms.find((a) => JSON.stringify(a.Metrics ?? []).includes('"5xx"'));
    const latency = alarms.find((a) => a.MetricName === 'Latency');

    // Assess
    const queries = rate?.Metrics as MetricQuery[];
    expect(
      queries
        .map((q) => q.MetricStat?.Metric.MetricName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['5xx', 'Count']);
    expect(queries.find((q) => q.Expression)?.Expression).toMatch(/100 \* FILL\(errors, 0\) \/ requests/);
    expect(rate?.Threshold).toBe(1);
    expect(latency).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p99',
      EvaluationPeriods: 3,
    });
    for (const metric of [...queries.filter((q) => q.MetricStat).map((q) => q.MetricStat!.Metric), latency]) {
      expect(JSON.stringify(metric?.Dimensions)).toContain('ApiId');
    }
  });

  it('alarms on throttled reads and writes of the table and of each of its indexes', () => {
    // Act
    const alarms = alarmsOf(asyncTemplate());
    const of = (name: string) => alarms.find((a) => metricsOf(a).some((m) => m.name === name));

    // Assess
    for (const name of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
      const metrics = metricsOf(of(name)!);
      expect(metrics.every((m) => m.name === name)).toBe(true);
      expect(
        metrics.map((m) => JSON.parse(m.dimensions.GlobalSecondaryIndexName ?? '"(table)"')).sort(),
      ).toEqual(['(table)', ...tableDefinition.globalSecondaryIndexes.map((i) => i.indexName)].sort());
    }
  });
});

describe('every function', () => {
  it('gets the cursor key as CURSOR_SECRET_ARN with GetSecretValue on it, never the value itself', () => {
    let checked = 0;
    for (const { stack, template } of stacks) {
      const policies = Object.values(template.findResources('AWS::IAM::Policy'));
      for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
        // Prepare
        const env = fn.Properties.Environment?.Variables ?? {};
        const roleId = fn.Properties.Role['Fn::GetAtt'][0];

        // Act
        const grants = policies
          .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
          .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
          .filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'));

        // Assess
        expect(env.CURSOR_SECRET, `${stack.node.path} ${id}`).toBeUndefined();
        // Every secret it may read is named by an ARN variable (site routes also read the origin secret
        // and the Turnstile secret); every function but the CORS preflight (no table, no cursor) reads
        // the cursor key.
        const readable = grants.flatMap((s) => [s.Resource].flat());
        const arnVariables = Object.keys(env).filter((k) => k.endsWith('_SECRET_ARN'));
        for (const variable of arnVariables)
          expect(readable, `${id} ${variable}`).toContainEqual(env[variable]);
        if (!id.startsWith('sitePreflight')) {
          expect(env.CURSOR_SECRET_ARN, `${stack.node.path} ${id}`).toBeDefined();
          expect(readable).toContainEqual(env.CURSOR_SECRET_ARN);
        }
        expect(grants.flatMap((s) => [s.Action].flat())).toEqual(
          grants.map(() => 'secretsmanager:GetSecretValue'),
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(25);
    // The secret is generated (never typed into a template) in the data stack.
    const secrets = Object.values(
      Template.fromStack(service.data).findResources('AWS::SecretsManager::Secret'),
    );
    // The cursor key, the site origin secret and the Turnstile secret: none typed into a template.
    expect(secrets.length).toBeGreaterThanOrEqual(1);
    expect(secrets.some((s) => s.Properties.GenerateSecretString !== undefined)).toBe(true);
    expect(secrets.filter((s) => s.Properties.SecretString !== undefined)).toEqual([]);
  });

  it('loads source maps for stack traces and does not trace with X-Ray', () => {
    for (const { template } of stacks) {
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
        // Assess
        expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
        expect(fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE).toBe('ListingsLeads');
        expect(fn.Properties.TracingConfig?.Mode ?? 'PassThrough').not.toBe('Active');
      }
    }
  });
});
