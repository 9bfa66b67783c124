import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/data/table.ts';
import type { RouteUse } from '../../functions/pipeline/route.ts';
import { isPublishable, type RouteDefinition, routeKeyPaths } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import type { RouteGroupStack } from '../../lib/stacks/route-group-stack.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';
import { actionsOf, roleStatements } from './iam-statements.ts';

type Json = Record<string, unknown>;

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'];
const WRITE_ACTIONS = [
  ...READ_ACTIONS,
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];
/** What any function holds besides table access: its own log group, and the cursor key. */
const PLATFORM_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents', 'secretsmanager:GetSecretValue'];
/** What a row's `uses` adds (test/infra/route-uses.test.ts checks the resources and values). */
const PHOTO_ENVIRONMENT = ['PHOTO_BUCKET', 'PHOTO_BASE_URL'];
const USES_ACTIONS: Record<RouteUse, readonly string[]> = {
  aiQueue: ['sqs:SendMessage'],
  email: ['ses:SendEmail'],
  imageQueue: ['sqs:SendMessage'],
  photoUpload: ['s3:PutObject'],
  photoConfirm: ['s3:GetObject', 's3:DeleteObject', 's3:PutObject', 's3:ListBucket'],
  photoDelete: ['s3:DeleteObject'],
  catalogueRead: ['s3:GetObject', 's3:ListBucket'],
};
const USES_ENVIRONMENT: Record<RouteUse, readonly string[]> = {
  aiQueue: ['AI_QUEUE_URL'],
  email: ['EMAIL_FROM'],
  imageQueue: ['IMAGE_IMPORT_QUEUE_URL'],
  photoUpload: PHOTO_ENVIRONMENT,
  photoConfirm: PHOTO_ENVIRONMENT,
  photoDelete: PHOTO_ENVIRONMENT,
  catalogueRead: ['CATALOGUE_BUCKET'],
};

/** The rows as RouteDefinition (the `as const` rows without `uses` have no such key). */
const table: readonly RouteDefinition[] = routes;
const keyPaths = routeKeyPaths(table);
/** The row's API Gateway route key path (test/unit/route-keys.test.ts checks it routes as the local server does). */
const apiGatewayPath = (route: RouteDefinition): string => keyPaths.get(route.operationId) as string;

let service: ServiceApp;
let groups: { stack: RouteGroupStack; template: Template }[];

beforeAll(() => {
  // Prepare + Act: the app synthesized once for the file with CDK's built-in CloudFormation validation
  // (cdk.json's validateAgainstDefaultRules fails the synth on any violation): the templates the other
  // infra files read without it (buildTestApp) are validated here. Bundling off: the real bundling of
  // every function is test/slow/bundles.test.ts, in `npm run test:slow`.
  service = buildApp({ stage: 'test', bundle: false, context: DEPLOY_CONTEXT });
  service.app.synth();
  groups = service.api.routeGroups.map((stack) => ({ stack, template: Template.fromStack(stack) }));
}, 120_000);

function groupOf(operationId: string) {
  const group = groups.find((g) => g.stack.functions.has(operationId));
  if (!group) throw new Error(`no route group holds ${operationId}`);
  return { ...group, fn: group.stack.functions.get(operationId)! };
}

describe('HTTP API routes', () => {
  it('has exactly one route per row of the route table, method and path as written (API Gateway form)', () => {
    // Prepare: an action suffix after a variable is matched by the variable alone, and siblings share
    // variable names (routeKeyPaths).
    // A site path also gets an OPTIONS route (the CORS preflight, one function for all of them).
    const sitePaths = [...new Set(routes.filter(isPublishable).map((r) => apiGatewayPath(r)))];
    const expected = [
      ...routes.map((r) => `${r.method} ${apiGatewayPath(r)}`),
      ...sitePaths.map((path) => `OPTIONS ${path}`),
    ].sort();

    // Act
    const routeKeys = groups
      .flatMap(({ template }) => Object.values(template.findResources('AWS::ApiGatewayV2::Route')))
      .map((route) => route.Properties.RouteKey as string)
      .sort();

    // Assess
    expect(routeKeys).toEqual(expected);
    expect(new Set(routeKeys).size).toBe(routeKeys.length);
  });

  it('sends every route to its own function', () => {
    for (const route of routes) {
      // Prepare
      const { template } = groupOf(route.operationId);
      const routeKey = `${route.method} ${apiGatewayPath(route)}`;

      // Act
      const [routeResource] = Object.values(
        template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }),
      );
      const integrationId = JSON.stringify(routeResource?.Properties.Target).match(/"Ref":"([^"]+)"/)?.[1];
      const integration = template.toJSON().Resources[integrationId ?? ''] as Json | undefined;
      const functionId = JSON.stringify(integration).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)?.[1];
      const fn = template.toJSON().Resources[functionId ?? ''] as { Properties: Json } | undefined;

      // Assess
      expect(fn?.Properties.Description).toBe(`${route.method} ${route.path} (${route.operationId})`);
    }
    const functionCount = groups.reduce(
      (n, { template }) => n + Object.keys(template.findResources('AWS::Lambda::Function')).length,
      0,
    );
    // One per row, plus the site paths' shared preflight function.
    expect(functionCount).toBe(routes.length + (routes.some(isPublishable) ? 1 : 0));
  });

  it('groups routes by tag, one nested stack per tag', () => {
    // Prepare
    const tags = new Set(routes.map((r) => r.tag));

    // Act
    const groupTags = groups.map(
      ({ stack }) => new Set(routes.filter((r) => stack.functions.has(r.operationId)).map((r) => r.tag)),
    );

    // Assess
    expect(groups).toHaveLength(tags.size);
    for (const groupTag of groupTags) expect(groupTag.size).toBe(1);
  });

  it('logs access on the $default stage and outputs the API URL', () => {
    // Prepare
    const template = Template.fromStack(service.api);

    // Act
    const stages = template.findResources('AWS::ApiGatewayV2::Stage');

    // Assess
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
    });
    for (const stage of Object.values(stages)) {
      expect(stage.Properties.AccessLogSettings.DestinationArn).toBeDefined();
      expect(stage.Properties.AccessLogSettings.Format).toContain('$context.requestId');
    }
    template.hasOutput('ApiUrl', {});
  });
});

describe('API function permissions', () => {
  it('grants each function the table actions of its route kind (table and indexes) and what its row uses', () => {
    // Prepare
    const dataTemplate = Template.fromStack(service.data);
    const [tableLogicalId] = Object.keys(dataTemplate.findResources('AWS::DynamoDB::Table'));
    const indexSuffixes = tableDefinition.globalSecondaryIndexes.map((i) => `/index/${i.indexName}`).sort();

    for (const route of table) {
      const { stack, template, fn } = groupOf(route.operationId);
      const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnRole);
      const expected = route.method === 'GET' ? READ_ACTIONS : WRITE_ACTIONS;
      const usesActions = [...new Set((route.uses ?? []).flatMap((use) => USES_ACTIONS[use]))];

      // Act
      const statements = roleStatements(template, roleId);
      const actions = statements.flatMap(actionsOf);
      const tableStatements = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));

      // Assess
      expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
      expect(actions.filter((a) => a.includes('*'))).toEqual([]);
      expect(actions).not.toContain('dynamodb:Scan');
      expect([...new Set(actions.filter((a) => a.startsWith('dynamodb:')))].sort()).toEqual(
        [...expected].sort(),
      );
      // Besides the table: the platform's actions, and exactly what the row `uses`.
      expect([...new Set(actions.filter((a) => !a.startsWith('dynamodb:')))].sort()).toEqual(
        [...PLATFORM_ACTIONS, ...usesActions].sort(),
      );
      for (const statement of tableStatements) {
        const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
        for (const resource of resources) {
          // Either the table ARN itself or `<table ARN>/index/<name>`; never "*" or `index/*`.
          const text = JSON.stringify(resource);
          expect(text).toContain(`${tableLogicalId}Arn`);
          expect(text).not.toContain('*');
        }
        const suffixes = resources
          .map((r) => JSON.stringify(r).match(/"(\/index\/[^"]+)"/)?.[1])
          .filter((s): s is string => s !== undefined);
        if (suffixes.length > 0) {
          expect(actionsOf(statement)).toEqual(['dynamodb:Query']);
          expect(suffixes.sort()).toEqual(indexSuffixes);
        }
      }
    }
  });
});

describe('API functions', () => {
  it('run Node.js 24 on arm64 without X-Ray, with source maps and their own log group with a retention', () => {
    for (const route of table) {
      // Prepare
      const { stack, template, fn } = groupOf(route.operationId);
      const functionId = stack.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
      const usesEnvironment = [...new Set((route.uses ?? []).flatMap((use) => USES_ENVIRONMENT[use]))];

      // Act
      const props = template.toJSON().Resources[functionId].Properties;
      const logGroup = template.toJSON().Resources[props.LoggingConfig?.LogGroup?.Ref ?? ''];

      // Assess
      expect(props.Runtime).toBe('nodejs24.x');
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.Handler).toBe('index.handler');
      expect(props.TracingConfig).toBeUndefined();
      expect(logGroup?.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup?.Properties.RetentionInDays).toBeGreaterThan(0);
      // The defaults, plus what the row `uses` (AI_QUEUE_URL, EMAIL_FROM) and nothing else.
      expect(Object.keys(props.Environment.Variables).sort()).toEqual(
        [
          'CURSOR_SECRET_ARN',
          'LOG_LEVEL',
          'NODE_OPTIONS',
          'POWERTOOLS_METRICS_NAMESPACE',
          'POWERTOOLS_SERVICE_NAME',
          'TABLE_NAME',
          // A site route checks the CloudFront origin-secret header (and the form its Turnstile token).
          ...(isPublishable(route) ? ['SITE_ORIGIN_SECRET_ARN'] : []),
          ...(route.operationId === 'createSiteLead' ? ['TURNSTILE_SECRET_ARN'] : []),
          ...usesEnvironment,
        ].sort(),
      );
      expect(props.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'listings-leads',
        POWERTOOLS_METRICS_NAMESPACE: 'ListingsLeads',
        LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
      });
      // The secret's ARN (the function reads the value at run time), never the value or a reference to it.
      expect(JSON.stringify(props.Environment.Variables)).not.toContain('{{resolve:secretsmanager:');
    }
  });
});
