import { join } from 'node:path';
import { NestedStack, type NestedStackProps } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey, type IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../functions/data/table.ts';
import { isPublishable, isWrite, type RouteDefinition } from '../../functions/pipeline/route.ts';
import { bindCatalogueStore } from '../constructs/catalogue-store-access.ts';
import { bindPhotoStore } from '../constructs/photo-store-access.ts';
import {
  repoRoot,
  ServiceFunction,
  TABLE_READ,
  TABLE_WRITE,
  type TableAction,
} from '../constructs/service-function.ts';

/**
 * What a route's function may do on the table, derived from the route row alone:
 * - every route authenticates (API-key lookup: GetItem/Query), reads (batches included), and counts its rate-limit
 *   window with one UpdateItem;
 * - a write (any method but GET) also writes alone, in batches and through transactions
 *   (Put/Delete/ConditionCheck per item), and stores idempotency records.
 */
export function tableActionsFor(route: RouteDefinition): readonly TableAction[] {
  const common: readonly TableAction[] = [...TABLE_READ, 'dynamodb:UpdateItem'];
  if (!isWrite(route)) return common;
  return [...common, ...TABLE_WRITE];
}

export interface RouteGroupStackProps extends NestedStackProps {
  /** The group's name: the routes' tag reduced to letters and digits (`Leads`). */
  readonly groupId: string;
  readonly api: IHttpApi;
  readonly table: ITable;
  /** HMAC key for pagination cursors; every function gets its ARN as `CURSOR_SECRET_ARN`. */
  readonly cursorSecret: ISecret;
  /** The rows of functions/routes.ts this group serves (all of one tag). */
  readonly routes: readonly RouteDefinition[];
  /**
   * The route key path of every row of the API, by operationId (`routeKeyPaths` of
   * functions/pipeline/route.ts, over the whole table: sibling routes share variable names across groups).
   */
  readonly routeKeyPaths: ReadonlyMap<string, string>;
  /** The AI queue, bound to the routes whose row `uses` 'aiQueue'. */
  readonly aiQueue: IQueue;
  /** The SES sender address, bound to the routes whose row `uses` 'email'. */
  readonly emailFrom: string;
  /**
   * The site routes' secrets (data stack): every publishable route gets the origin secret's ARN as
   * `SITE_ORIGIN_SECRET_ARN` (it refuses requests that did not come through CloudFront), the
   * inquiry route the Turnstile secret's as `TURNSTILE_SECRET_ARN`.
   * @default - none: a group with publishable routes then fails to synthesize
   */
  readonly siteSecrets?: SiteSecrets;
  /** The photo import queue, bound to the routes whose row `uses` 'imageQueue'. */
  readonly imageImportQueue: IQueue;
  /** The photo bucket and where its photos are served, for the routes whose row `uses` a photo action. */
  readonly photoBucket: IBucket;
  readonly photoBaseUrl: string;
}

export interface SiteSecrets {
  readonly origin: ISecret;
  readonly turnstile: ISecret;
}

/** The construct id of the one function that answers every site path's CORS preflight. */
export const SITE_PREFLIGHT_ID = 'sitePreflight';

/**
 * Binds to `service` what the route's row says it `uses` besides the table, and nothing else: a route
 * without `uses` gets neither the environment variable nor the grant, and so keeps the local adapter.
 */
export function bindRouteUses(
  service: ServiceFunction,
  route: RouteDefinition,
  props: Pick<
    RouteGroupStackProps,
    'aiQueue' | 'emailFrom' | 'imageImportQueue' | 'photoBucket' | 'photoBaseUrl'
  >,
): void {
  const photos = (access: Parameters<typeof bindPhotoStore>[3]) =>
    bindPhotoStore(service, props.photoBucket, props.photoBaseUrl, access);
  for (const use of new Set(route.uses ?? [])) {
    switch (use) {
      case 'aiQueue':
        service.bindQueue(props.aiQueue, 'AI_QUEUE_URL');
        break;
      case 'email':
        service.bindEmailSender(props.emailFrom);
        break;
      case 'imageQueue':
        service.bindQueue(props.imageImportQueue, 'IMAGE_IMPORT_QUEUE_URL');
        break;
      case 'photoUpload':
        // A presigned PUT carries the signer's rights: PutObject under uploads/ and nothing else.
        photos({ put: ['uploads/*'] });
        break;
      case 'photoConfirm':
        // Checks and removes the upload; keeps the version checked as the photo's original (private).
        photos({ get: ['uploads/*'], delete: ['uploads/*'], put: ['originals/*'], list: true });
        break;
      case 'photoDelete':
        // A deleted photo's renditions and its original.
        photos({ delete: ['images/*', 'originals/*'] });
        break;
      case 'catalogueRead':
        bindCatalogueStore(service, props.photoBucket, { write: false });
        break;
      default:
        throw new Error(`Route ${route.operationId} uses unknown service ${String(use satisfies never)}`);
    }
  }
}

/**
 * The routes of one tag of the route table, each with its own function and role. A nested stack has
 * its own 500-resource limit and is deployed, rolled back and removed with its parent API stack.
 */
export class RouteGroupStack extends NestedStack {
  readonly groupId: string;
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: RouteGroupStackProps) {
    super(scope, id, props);
    this.groupId = props.groupId;
    const functions = new Map<string, ServiceFunction>();

    for (const route of props.routes) {
      const routeKey = `${route.method} ${route.path}`;
      const service = new ServiceFunction(this, route.operationId, {
        entry: join(repoRoot, 'functions', 'http', route.entry),
        route,
        description: `${routeKey} (${route.operationId})`,
      });
      // The ARN only: the function reads the value at run time, once per container, so it is never in
      // the function's configuration (which anyone with lambda:GetFunction can read).
      service.bindSecret(props.cursorSecret, 'CURSOR_SECRET_ARN');
      service.suppressFunctionRule(
        'Serverless-LambdaDLQ',
        'Invoked synchronously by API Gateway only: a failure is the HTTP answer to the caller, so there ' +
          'is no asynchronous event for a dead-letter queue to keep.',
      );
      service.bindTable(props.table, {
        actions: tableActionsFor(route),
        indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
      });
      bindRouteUses(service, route, props);
      if (isPublishable(route)) {
        const secrets = requireSiteSecrets(props, route);
        service.bindSecret(secrets.origin, 'SITE_ORIGIN_SECRET_ARN');
        if (route.operationId === 'createSiteLead')
          service.bindSecret(secrets.turnstile, 'TURNSTILE_SECRET_ARN');
      }

      const httpRoute = new HttpRoute(this, `${route.operationId}Route`, {
        httpApi: props.api,
        routeKey: HttpRouteKey.with(keyPathOf(props, route), HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${route.operationId}Integration`, service.fn),
      });
      NagSuppressions.addResourceSuppressions(httpRoute, [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Authentication is done by the middleware chain every route shares: secret API keys are ' +
            'looked up by hash and publishable keys by origin rules, with a cache of at most 60 s so ' +
            'that revocation bites within a minute. An API Gateway authorizer would duplicate it and ' +
            'could not serve the local stack.',
        },
      ]);
      functions.set(route.operationId, service);
    }
    this.addSitePreflight(props, functions);
    this.functions = functions;
  }

  /**
   * CORS preflights of the site paths: one function answers `OPTIONS` on each of them with the
   * origin rules (functions/http/site/preflight.ts). API Gateway's own CORS is left off: it cannot
   * know a publishable key's origins, and when on it answers every preflight itself.
   */
  private addSitePreflight(props: RouteGroupStackProps, functions: Map<string, ServiceFunction>): void {
    const sitePaths = [...new Set(props.routes.filter(isPublishable).map((r) => keyPathOf(props, r)))];
    const first = props.routes.find(isPublishable);
    if (!first) return;
    const secrets = requireSiteSecrets(props, first);
    const service = new ServiceFunction(this, SITE_PREFLIGHT_ID, {
      entry: join(repoRoot, 'functions', 'http', 'site', 'preflight.ts'),
      description: 'OPTIONS on every site path (CORS preflight with the origin rules)',
    });
    service.bindSecret(secrets.origin, 'SITE_ORIGIN_SECRET_ARN');
    service.suppressFunctionRule(
      'Serverless-LambdaDLQ',
      'Invoked synchronously by API Gateway only: a failure is the HTTP answer to the caller, so there ' +
        'is no asynchronous event for a dead-letter queue to keep.',
    );
    // A preflight reads the key and its Tenant, and marks a secret key sent in a URL as exposed.
    service.bindTable(props.table, {
      actions: [...TABLE_READ, 'dynamodb:UpdateItem'],
      indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
    });
    const integration = new HttpLambdaIntegration('SitePreflightIntegration', service.fn);
    sitePaths.forEach((path, index) => {
      const route = new HttpRoute(this, `SitePreflight${index}Route`, {
        httpApi: props.api,
        routeKey: HttpRouteKey.with(path, HttpMethod.OPTIONS),
        integration,
      });
      NagSuppressions.addResourceSuppressions(route, [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'A CORS preflight carries no credentials by design (browsers send none); the function ' +
            'checks the publishable key and its origins from the query string.',
        },
      ]);
    });
    functions.set(SITE_PREFLIGHT_ID, service);
  }
}

function keyPathOf(props: RouteGroupStackProps, route: RouteDefinition): string {
  const keyPath = props.routeKeyPaths.get(route.operationId);
  if (!keyPath) throw new Error(`No route key path for ${route.operationId}`);
  return keyPath;
}

function requireSiteSecrets(props: RouteGroupStackProps, route: RouteDefinition): SiteSecrets {
  if (!props.siteSecrets) {
    throw new Error(`Route ${route.operationId} is a site route: the route group needs siteSecrets`);
  }
  return props.siteSecrets;
}
