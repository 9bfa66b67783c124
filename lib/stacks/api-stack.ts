import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpStage,
  LogGroupLogDestination,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { isPublishable, type RouteDefinition, routeKeyPaths } from '../../functions/pipeline/route.ts';
import { ServiceAlarms } from '../constructs/alarms.ts';
import { emailDomain } from '../constructs/service-function.ts';
import { RouteGroupStack, type SiteSecrets } from './route-group-stack.ts';

/**
 * A route group becomes one nested stack of about 7 resources per route (function, role, policy, log
 * group, invoke permission, integration, route). 40 routes stay near 280, well under the
 * 500-resource limit; a tag that outgrows this should be split into narrower tags.
 */
export const MAX_ROUTES_PER_GROUP = 40;

/**
 * Each route's own ceiling, a fifth of the stage's: a flood on one route (bad keys, preflights, direct
 * calls to a site route that refuse without CloudFront's secret), each request a Lambda run, is
 * throttled there and leaves the other routes most of the stage. AWS WAF, which could limit per
 * client, cannot be associated with an HTTP API.
 */
export const ROUTE_THROTTLE: ThrottleSettings = { rateLimit: 200, burstLimit: 400 };

export interface ApiStackProps extends StackProps {
  readonly table: ITable;
  /** The rows of functions/routes.ts; every row becomes one route with its own function. */
  readonly routes: readonly RouteDefinition[];
  /**
   * The AI queue (lib/stacks/async-stack.ts). Routes whose row `uses` 'aiQueue' get its URL as
   * `AI_QUEUE_URL` and `sqs:SendMessage` on it.
   */
  readonly aiQueue: IQueue;
  /**
   * The SES sender, a verified identity (the address or its domain) in the stack's region. Routes
   * whose row `uses` 'email' get it as `EMAIL_FROM` and `ses:SendEmail` on its identity.
   */
  readonly emailFrom: string;
  /** The photo import queue (async stack), for the routes whose row `uses` 'imageQueue'. */
  readonly imageImportQueue: IQueue;
  /** The photo bucket (data stack) and its CDN base URL, for the routes whose row `uses` a photo action. */
  readonly photoBucket: IBucket;
  readonly photoBaseUrl: string;
  /** The cursor-signing key (data stack); every function gets its ARN as `CURSOR_SECRET_ARN`. */
  readonly cursorSecret: ISecret;
  /** The site routes' secrets (data stack): CloudFront's origin header and the Turnstile key. */
  readonly siteSecrets?: SiteSecrets;
  /** The topic the API's alarms notify (async stack). */
  readonly alarmTopic: ITopic;
  /**
   * Account-level ceiling on the stage, in front of the per-tenant limits of the middleware: it caps
   * what a flood can cost in Lambda concurrency before any tenant is identified.
   * @default - 1000 requests per second, bursts of 2000
   */
  readonly throttle?: ThrottleSettings;
  /**
   * The ceiling of every single route (API Gateway `RouteSettings` on the stage), under the stage's.
   * @default ROUTE_THROTTLE (200 requests per second, bursts of 400)
   */
  readonly routeThrottle?: ThrottleSettings;
  /**
   * How long the API access logs are kept.
   * @default RetentionDays.THREE_MONTHS
   */
  readonly accessLogRetention?: RetentionDays;
}

/** The HTTP API groups routes by their `tag`; the group's id is the tag reduced to letters and digits. */
export function groupRoutesByTag(routes: readonly RouteDefinition[]): Map<string, RouteDefinition[]> {
  const groups = new Map<string, RouteDefinition[]>();
  for (const route of routes) {
    const groupId = route.tag.replace(/[^A-Za-z0-9]/g, '');
    if (!groupId) throw new Error(`Route ${route.operationId} has a tag with no letters or digits`);
    const group = groups.get(groupId) ?? [];
    group.push(route);
    groups.set(groupId, group);
  }
  for (const [groupId, group] of groups) {
    if (group.length > MAX_ROUTES_PER_GROUP) {
      throw new Error(
        `Tag ${groupId} has ${group.length} routes; a route group holds at most ${MAX_ROUTES_PER_GROUP} ` +
          'so that its stack stays well under the CloudFormation limit. Split the tag.',
      );
    }
  }
  return groups;
}

/**
 * The HTTP API: the API itself, its stage with access logs, and its alarms (5xx rate, p99 latency, and
 * errors and throttles per route group). Routes and their functions live in one nested stack per tag
 * of the route table.
 *
 * Why nested stacks per tag: each route costs ~7 resources, so the ~60 routes planned would put one
 * stack past 400 of its 500. Sharing one role per group would save only 2 of the 7 and give every
 * function its group's widest permissions. Per-tag nested stacks keep one least-privilege role per
 * function, keep this stack small whatever the route count, and, unlike separate top-level stacks,
 * deploy and roll back with the API as one unit and are deleted when their tag disappears (a removed
 * top-level stack would stay behind, still holding its routes on the API). A route's tag should not change: moving a route to another group
 * would create the new route before the old one is deleted, and API Gateway refuses a duplicate key.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly routeGroups: readonly RouteGroupStack[];
  /** The API's alarms: the HTTP API, and one function group per route group. */
  readonly alarms: ServiceAlarms;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);

    this.api = new HttpApi(this, 'Api', {
      description: 'Listings and Leads public API',
      // The default stage is declared below so that it can have access logs.
      createDefaultStage: false,
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 1000, burstLimit: 2000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // HTTP API variables only; no query string or headers, which may carry publishable keys.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTimeEpoch',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationStatus: '$context.integrationStatus',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });

    emailDomain(props.emailFrom); // refuses anything but a plain address, even when no route sends email
    this.alarms = new ServiceAlarms(this, 'Alarms', { topic: props.alarmTopic, httpApi: this.api });

    const groups: RouteGroupStack[] = [];
    const keyPaths = routeKeyPaths(props.routes);
    for (const [groupId, routes] of groupRoutesByTag(props.routes)) {
      groups.push(
        new RouteGroupStack(this, `${groupId}Routes`, {
          groupId,
          description: `Routes tagged ${routes[0]?.tag ?? groupId}`,
          api: this.api,
          table: props.table,
          cursorSecret: props.cursorSecret,
          routes,
          routeKeyPaths: keyPaths,
          aiQueue: props.aiQueue,
          emailFrom: props.emailFrom,
          ...(props.siteSecrets ? { siteSecrets: props.siteSecrets } : {}),
          imageImportQueue: props.imageImportQueue,
          photoBucket: props.photoBucket,
          photoBaseUrl: props.photoBaseUrl,
        }),
      );
    }
    for (const group of groups) {
      // Created inside the nested stack, next to the functions it watches (no cross-stack outputs).
      new ServiceAlarms(group, 'Alarms', {
        topic: props.alarmTopic,
        functionGroups: [{ name: group.groupId, functions: [...group.functions.values()].map((s) => s.fn) }],
      });
    }
    this.routeGroups = groups;
    this.throttleEachRoute(props.routes, keyPaths, props.routeThrottle ?? ROUTE_THROTTLE);

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the HTTP API' });
  }

  /**
   * One `RouteSettings` entry per route key (the rows' and the site paths' OPTIONS). API Gateway
   * refuses settings for a route key that does not exist yet, so the stage waits for the route groups.
   */
  private throttleEachRoute(
    routes: readonly RouteDefinition[],
    keyPaths: ReadonlyMap<string, string>,
    throttle: ThrottleSettings,
  ): void {
    const settings = {
      ThrottlingRateLimit: throttle.rateLimit,
      ThrottlingBurstLimit: throttle.burstLimit,
    };
    const keys = new Set<string>();
    for (const route of routes) {
      const keyPath = keyPaths.get(route.operationId) as string;
      keys.add(`${route.method} ${keyPath}`);
      if (isPublishable(route)) keys.add(`OPTIONS ${keyPath}`);
    }
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      [...keys].map((key) => [key, settings]),
    );
    for (const group of this.routeGroups) this.stage.node.addDependency(group);
  }
}
