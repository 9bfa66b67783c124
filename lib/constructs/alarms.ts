import { Duration, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';

/**
 * CloudWatch refuses a metric-math alarm over more than 10 metrics (a hard limit), so a function group
 * larger than this is watched by one alarm per slice of 10 functions.
 */
export const MAX_METRICS_PER_ALARM = 10;

/** Thresholds of the alarms; the defaults are what the service is expected to hold. */
export interface AlarmThresholds {
  /**
   * A stream consumer's iterator age (Maximum over 5 minutes) above which it is falling behind.
   * @default Duration.minutes(5)
   */
  readonly iteratorAge?: Duration;
  /**
   * Share of API requests answered 5xx over 5 minutes, in percent. Bad input is a 4xx by the house
   * rules, so any 5xx is a bug or an outage.
   * @default 1
   */
  readonly api5xxPercent?: number;
  /**
   * API p99 latency (API Gateway's `Latency`, 5 minutes) held for 3 periods in a row.
   * @default Duration.seconds(3)
   */
  readonly apiP99Latency?: Duration;
}

export interface AlarmTopicProps {
  /** The address that receives every alarm (CDK context `alarmEmail`); SNS asks it to confirm once. */
  readonly email: string;
}

/**
 * The one SNS topic every alarm of the service notifies, with an email subscription. Encrypted with
 * a customer managed key: CloudWatch can only publish to an encrypted topic whose key policy lets
 * `cloudwatch.amazonaws.com` use the key, which the AWS managed `alias/aws/sns` key never does.
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Encrypts the alarm topic; CloudWatch alarms publish with it',
      enableKeyRotation: true,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        // In a key policy "*" is this key. Which alarms may publish is the topic policy's business
        // (this account's alarms only, below).
        resources: ['*'],
      }),
    );
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Listings and Leads alarms',
      masterKey: this.key,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one (which lets the account's principals publish), and
    // `enforceSSL` gives this topic one whose only statement is the Deny of plain HTTP: without this
    // Allow, no alarm could ever publish. Only alarms of this account, in this region, may.
    const { account, partition, region } = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    this.topic.addSubscription(new EmailSubscription(props.email));
    NagSuppressions.addResourceSuppressions(
      this.topic,
      [
        {
          id: 'Serverless-SNSRedrivePolicy',
          reason:
            "The only subscription is the operators' email address. A dead-letter queue would hold " +
            'alarm notifications nobody reads; an alarm whose email fails stays in ALARM state in the ' +
            'CloudWatch console, and SNS reports failed deliveries in its NumberOfNotificationsFailed metric.',
        },
      ],
      true,
    );
  }
}

/** Functions watched together: one errors alarm and one throttles alarm per group (per slice of 10). */
export interface FunctionGroup {
  /** Letters and digits; part of the alarms' ids and descriptions (`Leads`, `Workers`). */
  readonly name: string;
  readonly functions: readonly IFunction[];
}

/** A table watched for throttled reads and writes, on the table and on each of its indexes. */
export interface WatchedTable {
  readonly table: ITable;
  readonly indexNames: readonly string[];
}

export interface ServiceAlarmsProps {
  /** Where every alarm (and its return to OK) is sent. */
  readonly topic: ITopic;
  /** @default - none; add more with `watchDeadLetterQueue` */
  readonly deadLetterQueues?: readonly IQueue[];
  /** @default - none; add more with `watchFunctionGroup` */
  readonly functionGroups?: readonly FunctionGroup[];
  /** Functions fed by a stream (iterator age). @default - none */
  readonly streamConsumers?: readonly IFunction[];
  /** The HTTP API: 5xx rate and p99 latency. @default - none */
  readonly httpApi?: IHttpApi;
  /** @default - none */
  readonly tables?: readonly WatchedTable[];
  /** @default - the defaults of AlarmThresholds */
  readonly thresholds?: AlarmThresholds;
}

/**
 * The service's alarms, all notifying one topic. Give it lists in its props, or add a resource later
 * with one call (`alarms.watchDeadLetterQueue(webhookDlq)`). The alarms are created in this construct's
 * stack, so create one per stack next to what it watches; they can share the topic.
 *
 * - every dead-letter queue: a message is visible (ApproximateNumberOfMessagesVisible > 0);
 * - every function group: Lambda errors > 0 and throttles > 0 (sum over 5 minutes);
 * - every stream consumer: iterator age (max) above the threshold;
 * - the HTTP API: 5xx rate and p99 latency;
 * - every table: read and write throttle events on the table and its indexes.
 *
 * Missing data is "not breaching": a queue or function that is idle is healthy.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;
  private readonly thresholds: Required<AlarmThresholds>;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.action = new SnsAction(props.topic);
    this.thresholds = {
      iteratorAge: props.thresholds?.iteratorAge ?? Duration.minutes(5),
      api5xxPercent: props.thresholds?.api5xxPercent ?? 1,
      apiP99Latency: props.thresholds?.apiP99Latency ?? Duration.seconds(3),
    };
    for (const queue of props.deadLetterQueues ?? []) this.watchDeadLetterQueue(queue);
    for (const group of props.functionGroups ?? []) this.watchFunctionGroup(group);
    for (const fn of props.streamConsumers ?? []) this.watchStreamConsumer(fn);
    if (props.httpApi) this.watchHttpApi(props.httpApi);
    for (const table of props.tables ?? []) this.watchTable(table);
  }

  /** Alarms as soon as one message sits in `queue` (a dead-letter queue: every message is a failure). */
  watchDeadLetterQueue(queue: IQueue): Alarm {
    return this.add(`DeadLetters${this.idOf(queue)}`, {
      description: `Messages are waiting in the dead-letter queue ${queue.node.path}: inspect and redrive them`,
      metric: queue.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(1),
      }),
      threshold: 0,
    });
  }

  /** Errors and throttles of `group.functions`, summed per slice of MAX_METRICS_PER_ALARM functions. */
  watchFunctionGroup(group: FunctionGroup): Alarm[] {
    if (!/^[A-Za-z0-9]+$/.test(group.name)) {
      throw new Error(`Function group name "${group.name}" must be letters and digits`);
    }
    const created: Alarm[] = [];
    const slices = sliced(group.functions, MAX_METRICS_PER_ALARM);
    slices.forEach((functions, index) => {
      const suffix = slices.length > 1 ? `${index + 1}` : '';
      const which = slices.length > 1 ? ` (part ${index + 1} of ${slices.length})` : '';
      created.push(
        this.add(`${group.name}Errors${suffix}`, {
          description: `Lambda errors (crashes, timeouts) in the ${group.name} functions${which}`,
          metric: sumOf(functions.map((fn) => fn.metricErrors({ period: Duration.minutes(5) }))),
          threshold: 0,
        }),
        this.add(`${group.name}Throttles${suffix}`, {
          description: `Lambda throttled invocations of the ${group.name} functions${which}`,
          metric: sumOf(functions.map((fn) => fn.metricThrottles({ period: Duration.minutes(5) }))),
          threshold: 0,
        }),
      );
    });
    return created;
  }

  /** The age of the oldest record the stream consumer `fn` has yet to process. */
  watchStreamConsumer(fn: IFunction): Alarm {
    return this.add(`IteratorAge${this.idOf(fn)}`, {
      description: `The stream consumer ${fn.node.path} is falling behind its stream`,
      metric: fn.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
      threshold: this.thresholds.iteratorAge.toMilliseconds(),
    });
  }

  /** 5xx share of the requests, and p99 latency, of the HTTP API. */
  watchHttpApi(api: IHttpApi): Alarm[] {
    const period = Duration.minutes(5);
    const errors = api.metricServerError({ period, statistic: Stats.SUM });
    const requests = api.metricCount({ period, statistic: Stats.SUM });
    return [
      this.add('Api5xxRate', {
        description: `More than ${this.thresholds.api5xxPercent}% of API requests answered 5xx`,
        metric: new MathExpression({
          expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
          usingMetrics: { errors, requests },
          period,
          label: '5xx %',
        }),
        threshold: this.thresholds.api5xxPercent,
      }),
      this.add('ApiP99Latency', {
        description: `API p99 latency above ${this.thresholds.apiP99Latency.toMilliseconds()} ms for 15 minutes`,
        metric: api.metricLatency({ period, statistic: Stats.p(99) }),
        threshold: this.thresholds.apiP99Latency.toMilliseconds(),
        evaluationPeriods: 3,
      }),
    ];
  }

  /** Read and write throttle events of `table` and of each of its indexes (throttled indexes throttle writes). */
  watchTable({ table, indexNames }: WatchedTable): Alarm[] {
    if (indexNames.length + 1 > MAX_METRICS_PER_ALARM) {
      throw new Error(`A table alarm watches at most ${MAX_METRICS_PER_ALARM - 1} indexes`);
    }
    const period = Duration.minutes(5);
    const eventsOf = (metricName: string) =>
      sumOf([
        new Metric({
          namespace: 'AWS/DynamoDB',
          metricName,
          dimensionsMap: { TableName: table.tableName },
          statistic: Stats.SUM,
          period,
        }),
        ...indexNames.map(
          (indexName) =>
            new Metric({
              namespace: 'AWS/DynamoDB',
              metricName,
              dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
              statistic: Stats.SUM,
              period,
            }),
        ),
      ]);
    const id = this.idOf(table);
    return [
      this.add(`ReadThrottles${id}`, {
        description: `DynamoDB throttled reads on ${table.node.path} or its indexes`,
        metric: eventsOf('ReadThrottleEvents'),
        threshold: 0,
      }),
      this.add(`WriteThrottles${id}`, {
        description: `DynamoDB throttled writes on ${table.node.path} or its indexes`,
        metric: eventsOf('WriteThrottleEvents'),
        threshold: 0,
      }),
    ];
  }

  /**
   * Alarms when the service counts `metricName` (a Powertools business metric of functions/kernel/
   * metrics.ts, namespace `namespace`, dimension `service`) at least once in five minutes.
   */
  watchBusinessCount(options: {
    namespace: string;
    metricName: string;
    service: string;
    description: string;
  }): Alarm {
    return this.add(`${options.metricName}Alarm`, {
      description: options.description,
      metric: new Metric({
        namespace: options.namespace,
        metricName: options.metricName,
        dimensionsMap: { service: options.service },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: 0,
    });
  }

  private add(
    id: string,
    options: { description: string; metric: IMetric; threshold: number; evaluationPeriods?: number },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  /**
   * A construct id from the watched resource's own id (`StreamDeadLetterQueue`), or its parent's for a
   * ServiceFunction's inner `Function` (`StreamConsumer`).
   */
  private idOf(watched: Construct): string {
    const named = watched.node.id === 'Function' && watched.node.scope ? watched.node.scope : watched;
    return named.node.id.replace(/[^A-Za-z0-9]/g, '');
  }
}

/** One time series: the sum of `metrics` at each timestamp, a missing datapoint counting as 0. */
function sumOf(metrics: readonly IMetric[]): IMetric {
  if (metrics.length === 1 && metrics[0]) return metrics[0];
  const usingMetrics = Object.fromEntries(metrics.map((metric, i) => [`m${i}`, metric]));
  return new MathExpression({
    // FILL first: an idle function has no datapoint, and a sum with a gap would be a gap.
    expression: Object.keys(usingMetrics)
      .map((name) => `FILL(${name}, 0)`)
      .join(' + '),
    usingMetrics,
    period: Duration.minutes(5),
  });
}

function sliced<T>(items: readonly T[], size: number): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; i += size) slices.push(items.slice(i, i + size));
  return slices;
}
