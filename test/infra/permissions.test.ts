/**
 * Permissions proven, not assumed: DynamoDB Local checks no IAM, so a missing grant shows only on real
 * AWS. The integration and e2e runs record every AWS operation each function performs (an SDK
 * middleware, test/support/record-aws-operations.ts); this file, run after them (its own vitest
 * project, a later group), checks that the synthesized IAM policy of each function's role allows each
 * one, resource ARN included (the table, or `table/…/index/NAME` for an index Query).
 *
 * SQS, SES and Bedrock run as local adapters in the tests, so their calls are never observed; what
 * their AWS adapters do is declared below from each function's `uses` and checked the same way. The
 * webhook ladder's AWS adapter is run here instead, as each function that schedules retries, with the
 * environment synthesized for it and Scheduler and SQS mocked at the edge: its calls are checked.
 *
 * Alone (`npx vitest run test/infra/permissions.test.ts`) it reads the records of the last full run.
 */

import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Stack } from 'aws-cdk-lib';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { CfnQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition, RouteUse } from '../../functions/api/route.ts';
import {
  type AwsOperation,
  authorizedOperations,
  runAsFunction,
} from '../../functions/kernel/aws-operations.ts';
import { awsLadderFromEnvironment } from '../../functions/kernel/ports/webhook-ladder.ts';
import { routes } from '../../functions/routes.ts';
import { type WorkerUse, workers } from '../../functions/workers.ts';
import { buildApp } from '../../lib/app.ts';
import { repoRoot, ServiceFunction } from '../../lib/constructs/service-function.ts';
import {
  AWS_OPERATIONS_DIR,
  readAwsOperations,
  readInvokedFunctions,
  WORKER_ENTRIES,
} from '../support/aws-operations.ts';
import {
  ACCOUNT,
  allows,
  type FunctionGrants,
  type Needed,
  PARTITION,
  REGION,
  SynthesizedApp,
  TABLE,
} from '../support/iam-policies.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

type Json = Record<string, unknown>;

/**
 * Items the local adapters write in place of an AWS call (the local queue's messages stand for SQS,
 * the outbox for SES): in Lambda these writes never happen, the `uses` checks below cover the calls.
 */
const LOCAL_STAND_IN_ENTITIES = new Set(['localQueueMessage', 'outboxEmail']);

/** What a function uses besides the table: a route's row or a worker's row says it. */
type Use = RouteUse | WorkerUse;

/** The uses of each worker, by the entry its records go under (functions/workers.ts). */
const WORKER_USES: Record<string, readonly Use[]> = Object.fromEntries(workers.map((w) => [w.entry, w.uses]));

/** The geography prefixes of cross-region inference profile ids (`eu.amazon.nova-lite-v1:0`). */
const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

const SENDER = { address: 'leads@mail.agency.test', domain: 'mail.agency.test' };

const table: readonly RouteDefinition[] = routes;

let app: SynthesizedApp;
let functions: FunctionGrants[];
let recorded: AwsOperation[];
let invoked: Set<string>;
/** What each function that schedules webhook retries did on AWS when its ladder adapter ran. */
let ladderOperations: AwsOperation[];

/** Scheduler and SQS at the edge: the ladder adapter's calls are answered here, never sent. */
const schedulerEdge = mockClient(SchedulerClient);
const sqsEdge = mockClient(SQSClient);

/** Every function of the app under the name its records use (operationId, or the entry). */
function serviceFunctions(): Map<string, ServiceFunction> {
  const routeNames = new Map<ServiceFunction, string>();
  for (const group of app.service.api.routeGroups) {
    for (const [operationId, fn] of group.functions) routeNames.set(fn, operationId);
  }
  return new Map(
    app.service.app.node
      .findAll()
      .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
      .map((fn) => [routeNames.get(fn) ?? relative(repoRoot, fn.entry), fn]),
  );
}

/** The function's environment as it will be in the account (references rendered as the policies are). */
function deployedEnvironment(fn: ServiceFunction): NodeJS.ProcessEnv {
  const stack = Stack.of(fn.fn);
  const functionId = stack.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
  const resources = app.template(stack).Resources as Record<string, { Properties: Json }>;
  const properties = resources[functionId]?.Properties ?? {};
  const variables = (properties.Environment as { Variables?: Json } | undefined)?.Variables ?? {};
  // A queue's Ref is its URL, whose last segment is the queue's name (the policies' ARNs end in it).
  const rendered = (value: unknown): string => {
    const ref = (value as { Ref?: string } | undefined)?.Ref;
    const queue =
      ref !== undefined && resources[ref] && (resources[ref] as { Type?: string }).Type === 'AWS::SQS::Queue';
    return queue
      ? `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${stack.stackName}-${ref}`
      : app.render(stack, value);
  };
  return Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, rendered(v)]));
}

/**
 * Runs the webhook ladder's AWS adapter as `name`, configured from its synthesized environment: a
 * rung within 15 minutes (an SQS delay) and one beyond (a Scheduler schedule). What each call sent
 * is turned into the IAM operations it needs by the recording middleware's own rules
 * (`authorizedOperations`): the mock answers `send` itself, before the client's middleware runs.
 */
async function ladderOperationsOf(name: string, fn: ServiceFunction): Promise<AwsOperation[]> {
  schedulerEdge.reset();
  sqsEdge.reset();
  schedulerEdge.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/mocked' });
  sqsEdge.on(SendMessageCommand).resolves({ MessageId: 'mocked' });
  const ladder = awsLadderFromEnvironment(deployedEnvironment(fn));
  const message = {
    tenantId: 't',
    endpointId: 'e',
    deliveryId: 'd',
    trigger: 'auto' as const,
    token: randomUUID(),
  };
  await runAsFunction(name, async () => {
    await ladder.enqueue(message, 60_000);
    await ladder.enqueue(message, 30 * 60_000);
  });
  const sent = [
    ...schedulerEdge
      .commandCalls(CreateScheduleCommand)
      .map((c) => ['scheduler', 'CreateSchedule', c.args[0].input] as const),
    ...sqsEdge.commandCalls(SendMessageCommand).map((c) => ['sqs', 'SendMessage', c.args[0].input] as const),
  ];
  return sent.flatMap(([service, apiName, input]) =>
    authorizedOperations(service, apiName, input as unknown as Record<string, unknown>).map((operation) => ({
      function: name,
      service,
      ...operation,
    })),
  );
}

/** The operation as the ARN it touches in the account: the test table stands for the service's. */
function neededOf(operation: AwsOperation): Needed {
  const resource =
    operation.service === 'dynamodb'
      ? operation.resource.replace(/^table\/[^/]+/, `table/${TABLE}`)
      : operation.resource;
  return {
    action: operation.action,
    arn: `arn:${PARTITION}:${operation.service}:${REGION}:${ACCOUNT}:${resource}`,
  };
}

/** The DynamoDB operations recorded for `name`, as needed grants, without the local stand-ins' writes. */
function recordedNeeds(name: string): Needed[] {
  const needs = recorded
    .filter((op) => op.function === name && op.service === 'dynamodb')
    .filter((op) => !(op.entity && LOCAL_STAND_IN_ENTITIES.has(op.entity)))
    .map(neededOf);
  return [...new Map(needs.map((n) => [`${n.action} ${n.arn}`, n])).values()];
}

/** A photo object of one Tenant's listing under `prefix`, as the S3 photo store names it. */
function photoObject(prefix: 'uploads' | 'images'): string {
  const { data } = app.service;
  const bucketId = data.getLogicalId(data.photoBucket.node.defaultChild as CfnBucket);
  return `arn:${PARTITION}:s3:${REGION}:${ACCOUNT}:${bucketId}.Arn/${prefix}/${randomUUID()}/${randomUUID()}/photo`;
}

/** The photo bucket itself (ListBucket, which lets a HeadObject of a missing key answer 404). */
function photoBucketArn(): string {
  const { data } = app.service;
  const bucketId = data.getLogicalId(data.photoBucket.node.defaultChild as CfnBucket);
  return `arn:${PARTITION}:s3:${REGION}:${ACCOUNT}:${bucketId}.Arn`;
}

/**
 * The calls of the AWS adapters `name` uses (SQS SendMessage, SES SendEmail, Bedrock Converse, the
 * S3 photo store: PutObject to sign or write, GetObject for Head/Get/the source of a copy, DeleteObject).
 */
function declaredNeeds(name: string): Needed[] {
  const { async } = app.service;
  const route = table.find((r) => r.operationId === name);
  const uses: readonly Use[] = route ? (route.uses ?? []) : (WORKER_USES[name] ?? []);
  const modelId = async.aiModel.modelId;
  const queueArn = (queue: Queue) =>
    `arn:${PARTITION}:sqs:${REGION}:${ACCOUNT}:${async.stackName}-${async.getLogicalId(queue.node.defaultChild as CfnQueue)}`;
  return uses.flatMap((use): Needed[] => {
    switch (use) {
      case 'imageQueue':
        return [{ action: 'sqs:SendMessage', arn: queueArn(async.imageImport.queue) }];
      case 'photoUpload':
        return [{ action: 's3:PutObject', arn: photoObject('uploads') }];
      case 'photoConfirm':
        return [
          { action: 's3:GetObject', arn: photoObject('uploads') },
          { action: 's3:DeleteObject', arn: photoObject('uploads') },
          { action: 's3:PutObject', arn: photoObject('images') },
          { action: 's3:DeleteObject', arn: photoObject('images') },
          { action: 's3:ListBucket', arn: photoBucketArn() },
        ];
      case 'photoDelete':
        return [{ action: 's3:DeleteObject', arn: photoObject('images') }];
      case 'photoImport':
        return [
          { action: 's3:PutObject', arn: photoObject('images') },
          { action: 's3:DeleteObject', arn: photoObject('images') },
        ];
      case 'aiQueue':
        return [{ action: 'sqs:SendMessage', arn: queueArn(async.aiQueue) }];
      case 'webhookQueue':
        return [{ action: 'sqs:SendMessage', arn: queueArn(async.webhookLadder.queue) }];
      case 'email':
        // SES authorizes the sender's identity; the domain is the one ops verify.
        return [
          {
            action: 'ses:SendEmail',
            arn: `arn:${PARTITION}:ses:${REGION}:${ACCOUNT}:identity/${SENDER.domain}`,
          },
        ];
      case 'webhookSchedules':
        // What the ladder adapter did when run as this function (scheduler:CreateSchedule on the
        // schedule in its group, iam:PassRole of the scheduler role): see ladderOperationsOf.
        return ladderOperations.filter((op) => op.function === name && op.service !== 'sqs').map(neededOf);
      case 'bedrock':
        // Converse is authorized as bedrock:InvokeModel on the model (or the inference profile) it names.
        return [
          {
            action: 'bedrock:InvokeModel',
            arn: INFERENCE_PROFILE_PREFIX.test(modelId)
              ? `arn:${PARTITION}:bedrock:${REGION}:${ACCOUNT}:inference-profile/${modelId}`
              : `arn:${PARTITION}:bedrock:${REGION}::foundation-model/${modelId}`,
          },
        ];
      default:
        throw new Error(`unknown use ${String(use satisfies never)}`);
    }
  });
}

/** Per function, what it needs and its role does not allow. */
function missingGrants(
  fns: readonly FunctionGrants[],
  needsOf: (name: string) => Needed[],
): Record<string, string[]> {
  const missing: Record<string, string[]> = {};
  for (const fn of fns) {
    const refused = needsOf(fn.name)
      .filter((needed) => !allows(fn.grants, needed))
      .map((needed) => `${needed.action} on ${needed.arn}`);
    if (refused.length > 0) missing[fn.name] = refused.sort();
  }
  return missing;
}

/** A copy of `stack`'s template in which the role of function `name` no longer has `edit` applied statements. */
function withEditedRole(name: string, edit: (statement: Json) => Json | undefined): SynthesizedApp {
  const edited = new SynthesizedApp(app.service);
  const fn = serviceFunctions().get(name);
  if (!fn) throw new Error(`no function ${name}`);
  const stack = fn.role.stack as Stack;
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnRole);
  const template = structuredClone(app.template(stack)) as {
    Resources: Record<string, { Type: string; Properties: Json }>;
  };
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    if (!JSON.stringify(resource.Properties.Roles).includes(`"${roleId}"`)) continue;
    const document = resource.Properties.PolicyDocument as { Statement: Json[] };
    document.Statement = document.Statement.map(edit).filter((s): s is Json => s !== undefined);
  }
  edited.replaceTemplate(stack, template);
  return edited;
}

beforeAll(async () => {
  recorded = readAwsOperations();
  invoked = new Set(readInvokedFunctions());
  app = new SynthesizedApp(
    buildApp({
      stage: 'perm',
      bundle: false,
      env: {},
      context: { ...DEPLOY_CONTEXT, emailFrom: SENDER.address },
    }),
  );
  functions = app.functionGrants();
  const schedulers = [...serviceFunctions()].filter(([name]) =>
    (WORKER_USES[name] ?? []).includes('webhookSchedules'),
  );
  ladderOperations = [];
  for (const [name, fn] of schedulers) ladderOperations.push(...(await ladderOperationsOf(name, fn)));
}, 180_000);

afterAll(() => {
  schedulerEdge.restore();
  sqsEdge.restore();
});

describe('IAM grants against the AWS operations the functions performed', () => {
  it('has records of the integration and e2e runs for every function of the app', () => {
    // Act
    // A function is covered when it performed an AWS operation, or was run (the stream consumer only
    // sends to the queue, a local adapter in tests: its grant is checked from its uses below).
    const silent = functions
      .map((fn) => fn.name)
      .filter((name) => !invoked.has(name) && !recorded.some((op) => op.function === name));
    // Assess
    expect(
      recorded.length,
      `no records under ${AWS_OPERATIONS_DIR}: run the whole suite (npm test)`,
    ).toBeGreaterThan(0);
    expect(silent, 'functions no integration or e2e test ran (cover them)').toEqual([]);
    expect(functions.map((fn) => fn.name)).toEqual(
      expect.arrayContaining([...table.map((r) => r.operationId), ...Object.values(WORKER_ENTRIES)]),
    );
  });

  it('grants each function every DynamoDB action it performed, on the table or the index it named', () => {
    // Act
    const missing = missingGrants(functions, recordedNeeds);
    // Assess
    expect(missing).toEqual({});
  });

  it('grants each function what the AWS adapters it uses call: SQS SendMessage, SES SendEmail, Bedrock', () => {
    // Act
    const missing = missingGrants(functions, declaredNeeds);
    const declared = functions.filter((fn) => declaredNeeds(fn.name).length > 0).map((fn) => fn.name);
    // Assess
    expect(missing).toEqual({});
    expect(declared).toEqual(
      expect.arrayContaining([
        'sendLeadMatches',
        'importPropertyImage',
        'createPropertyImageUpload',
        'confirmPropertyImage',
        'deletePropertyImage',
        WORKER_ENTRIES.imageImport,
        WORKER_ENTRIES.aiWorker,
        WORKER_ENTRIES.streamConsumer,
        WORKER_ENTRIES.webhookDelivery,
      ]),
    );
  });

  it('grants the webhook ladder what its AWS adapter called: a schedule in its group, the scheduler role passed', () => {
    // Act
    const worker = WORKER_ENTRIES.webhookDelivery;
    const calls = ladderOperations.filter((op) => op.function === worker);
    const missing = missingGrants(
      functions.filter((fn) => fn.name === worker),
      (name) => ladderOperations.filter((op) => op.function === name).map(neededOf),
    );
    // Assess: the adapter did call Scheduler (a rung beyond SQS's 15 minutes) and SQS, each allowed.
    expect(calls.map((op) => op.action).sort()).toEqual([
      'iam:PassRole',
      'scheduler:CreateSchedule',
      'sqs:SendMessage',
    ]);
    expect(missing).toEqual({});
  });
});

describe('the check itself', () => {
  it('fails when the upload minter may sign PUTs under images/ only, not uploads/', () => {
    // Prepare
    const edited = withEditedRole('createPropertyImageUpload', (statement) =>
      JSON.stringify(statement.Action).includes('s3:PutObject')
        ? {
            ...statement,
            Resource: JSON.parse(JSON.stringify(statement.Resource).replaceAll('/uploads/', '/images/')),
          }
        : statement,
    );
    // Act
    const missing = missingGrants(edited.functionGrants(), declaredNeeds);
    // Assess
    expect(Object.keys(missing)).toEqual(['createPropertyImageUpload']);
    expect(missing.createPropertyImageUpload?.[0]).toMatch(/^s3:PutObject on arn:aws:s3:.*\/uploads\//);
  });

  it('fails when a grant is removed: getLead without dynamodb:GetItem', () => {
    // Prepare
    const edited = withEditedRole('getLead', (statement) => {
      const actions = ([] as string[]).concat(statement.Action as string | string[]);
      const kept = actions.filter((action) => action !== 'dynamodb:GetItem');
      return kept.length > 0 ? { ...statement, Action: kept } : undefined;
    });
    // Act
    const missing = missingGrants(edited.functionGrants(), recordedNeeds);
    // Assess
    expect(Object.keys(missing)).toEqual(['getLead']);
    expect(missing.getLead).toContain(
      `dynamodb:GetItem on arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`,
    );
  });

  it('fails when a Query is granted on the table but not on the index it reads: listLeads without its indexes', () => {
    // Prepare
    const edited = withEditedRole('listLeads', (statement) =>
      JSON.stringify(statement.Resource).includes('/index/') ? undefined : statement,
    );
    // Act
    const missing = missingGrants(edited.functionGrants(), recordedNeeds);
    // Assess
    expect(Object.keys(missing)).toEqual(['listLeads']);
    expect(
      missing.listLeads?.every(
        (m) => m.startsWith('dynamodb:Query on ') && m.includes(`table/${TABLE}/index/`),
      ),
    ).toBe(true);
  });

  it('fails when the webhook worker loses scheduler:CreateSchedule, or may pass no role to Scheduler', () => {
    // Prepare
    const worker = WORKER_ENTRIES.webhookDelivery;
    const without = (action: string) =>
      withEditedRole(worker, (statement) =>
        JSON.stringify(statement.Action).includes(action) ? undefined : statement,
      );
    // Act
    const noSchedules = missingGrants(without('scheduler:CreateSchedule').functionGrants(), declaredNeeds);
    const noPassRole = missingGrants(without('iam:PassRole').functionGrants(), declaredNeeds);
    // Assess
    expect(Object.keys(noSchedules)).toEqual([worker]);
    expect(noSchedules[worker]).toEqual([
      expect.stringMatching(/^scheduler:CreateSchedule on arn:aws:scheduler:.*:schedule\/.+\/webhook-/),
    ]);
    expect(Object.keys(noPassRole)).toEqual([worker]);
    expect(noPassRole[worker]).toEqual([expect.stringMatching(/^iam:PassRole on arn:aws:iam:/)]);
  });

  it('fails when a route that sends email loses ses:SendEmail', () => {
    // Prepare
    const edited = withEditedRole('sendLeadMatches', (statement) =>
      JSON.stringify(statement.Action).includes('ses:') ? undefined : statement,
    );
    // Act
    const missing = missingGrants(edited.functionGrants(), declaredNeeds);
    // Assess
    expect(missing).toEqual({
      sendLeadMatches: [`ses:SendEmail on arn:aws:ses:${REGION}:${ACCOUNT}:identity/${SENDER.domain}`],
    });
  });
});
