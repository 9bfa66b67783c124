/**
 * Permissions proven, not assumed: DynamoDB Local checks no IAM, so a missing grant shows only on real
 * AWS. The integration and e2e runs record every AWS operation each function performs (an SDK
 * middleware, test/support/record-aws-operations.ts); the permissions project of each test command
 * (test/infra/permissions.test.ts for `npm test`, test/slow/permissions.test.ts for `npm run
 * test:slow`), run after the others, checks here that the synthesized IAM policy of each function's
 * role allows each one, resource ARN included (the table, or `table/…/index/NAME` for an index Query),
 * by evaluating the request with an IAM policy evaluator (test/support/iam-policies.ts): the role's
 * policies and the target's resource policy (a queue's, the bucket's), Deny statements and conditions
 * included, over TLS as the SDK calls. The edges between services (Scheduler, CloudWatch,
 * EventBridge, CloudFront, API Gateway, the event source mappings) are in test/infra/edges.test.ts.
 *
 * SQS, SES and Bedrock run as local adapters in the tests, so their calls are never observed; what
 * their AWS adapters do is declared below from each function's `uses` and checked the same way. The
 * webhook ladder's AWS adapter is run here instead, as each function that schedules retries, with the
 * environment synthesized for it and Scheduler and SQS mocked at the edge: its calls are checked.
 */

import { randomUUID } from 'node:crypto';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AwsOperation,
  authorizedOperations,
  runAsFunction,
} from '../../functions/kernel/aws-operations.ts';
import { awsLadderFromEnvironment } from '../../functions/kernel/ports/webhook-ladder.ts';
import type { RouteDefinition, RouteUse } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { type WorkerUse, workers } from '../../functions/workers.ts';
import { buildApp } from '../../lib/app.ts';
import type { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { DEPLOY_CONTEXT } from '../infra/deploy-context.ts';
import {
  AWS_OPERATIONS_DIR,
  readAwsOperations,
  readInvokedFunctions,
  WORKER_ENTRIES,
} from './aws-operations.ts';
import {
  ACCOUNT,
  type AccessRequest,
  type FunctionRole,
  PARTITION,
  REGION,
  SynthesizedApp,
  TABLE,
} from './iam-policies.ts';

type Json = Record<string, unknown>;

/** One operation that must be allowed: an IAM action on one resource ARN, in the context AWS sees. */
type Needed = Omit<AccessRequest, 'principal'>;

/** The SDK calls AWS over HTTPS (the queues and the bucket deny anything else). */
const OVER_TLS = { 'aws:SecureTransport': 'true' };

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

export const SENDER = { address: 'leads@mail.agency.test', domain: 'mail.agency.test' };

const table: readonly RouteDefinition[] = routes;

let app: SynthesizedApp;
let functions: FunctionRole[];

/** Every function of the app with its role (once the checks' beforeAll has run). */
export function allFunctions(): FunctionRole[] {
  return functions;
}
let recorded: AwsOperation[];
let invoked: Set<string>;
/** What each function that schedules webhook retries did on AWS when its ladder adapter ran. */
let ladderOperations: AwsOperation[];

/** Scheduler and SQS at the edge: the ladder adapter's calls are answered here, never sent. */
const schedulerEdge = mockClient(SchedulerClient);
const sqsEdge = mockClient(SQSClient);

/** Every function of the app under the name its records use (operationId, or the entry). */
function serviceFunctions(): Map<string, ServiceFunction> {
  return new Map(app.functionRoles().map(({ name, fn }) => [name, fn]));
}

/** The function's environment as it will be in the account (a queue's Ref is its URL, and so on). */
function deployedEnvironment(fn: ServiceFunction): NodeJS.ProcessEnv {
  const stack = Stack.of(fn.fn);
  const functionId = stack.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
  const resources = app.template(stack).Resources as Record<string, { Properties: Json }>;
  const properties = resources[functionId]?.Properties ?? {};
  const variables = (properties.Environment as { Variables?: Json } | undefined)?.Variables ?? {};
  return Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, String(app.resolve(stack, v))]));
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

/**
 * The operation as the request IAM evaluates: its ARN in the account (the test table stands for the
 * service's; IAM and S3 ARNs name no region), in the context the SDK sends.
 */
function neededOf(operation: AwsOperation): Needed {
  const { service, action, resource } = operation;
  const arn =
    service === 'dynamodb'
      ? `arn:${PARTITION}:dynamodb:${REGION}:${ACCOUNT}:${resource.replace(/^table\/[^/]+/, `table/${TABLE}`)}`
      : service === 'iam'
        ? `arn:${PARTITION}:iam::${ACCOUNT}:${resource}`
        : service === 's3'
          ? `arn:${PARTITION}:s3:::${resource}`
          : `arn:${PARTITION}:${service}:${REGION}:${ACCOUNT}:${resource}`;
  // A role passed to a service is passed to the one the call names (here, Scheduler's CreateSchedule).
  const passed: Record<string, string> =
    action === 'iam:PassRole' ? { 'iam:PassedToService': 'scheduler.amazonaws.com' } : {};
  return { action, resource: arn, context: { ...OVER_TLS, ...passed } };
}

/** The DynamoDB operations recorded for `name`, as needed grants, without the local stand-ins' writes. */
export function recordedNeeds(name: string): Needed[] {
  const needs = recorded
    .filter((op) => op.function === name && op.service === 'dynamodb')
    .filter((op) => !(op.entity && LOCAL_STAND_IN_ENTITIES.has(op.entity)))
    .map(neededOf);
  return [...new Map(needs.map((n) => [`${n.action} ${n.resource}`, n])).values()];
}

/** A Tenant's catalogue snapshot, as the catalogue store names it. */
function catalogueObject(): string {
  return `${app.arnOf(app.service.data.photoBucket)}/catalogue/${randomUUID()}.json.gz`;
}

/** A photo object of one Tenant's listing under `prefix`, as the S3 photo store names it. */
function photoObject(prefix: 'uploads' | 'images' | 'originals'): string {
  return `${app.arnOf(app.service.data.photoBucket)}/${prefix}/${randomUUID()}/${randomUUID()}/photo`;
}

/**
 * The calls of the AWS adapters `name` uses (SQS SendMessage, SES SendEmail, Bedrock Converse, the
 * S3 photo store: PutObject to sign or write, GetObject for Head/Get/the source of a copy, DeleteObject).
 */
export function declaredNeeds(name: string): Needed[] {
  const { async } = app.service;
  const route = table.find((r) => r.operationId === name);
  const uses: readonly Use[] = route ? (route.uses ?? []) : (WORKER_USES[name] ?? []);
  const modelId = async.aiModel.modelId;
  const queueArn = (queue: Queue) => app.arnOf(queue);
  const over = (needs: { action: string; resource: string }[]): Needed[] =>
    needs.map((need) => ({ ...need, context: OVER_TLS }));
  return uses.flatMap((use): Needed[] => {
    switch (use) {
      case 'imageQueue':
        return over([{ action: 'sqs:SendMessage', resource: queueArn(async.imageImport.queue) }]);
      case 'photoUpload':
        return over([{ action: 's3:PutObject', resource: photoObject('uploads') }]);
      case 'photoConfirm':
        return over([
          { action: 's3:GetObject', resource: photoObject('uploads') },
          { action: 's3:DeleteObject', resource: photoObject('uploads') },
          { action: 's3:PutObject', resource: photoObject('originals') },
          { action: 's3:ListBucket', resource: app.arnOf(app.service.data.photoBucket) },
        ]);
      case 'photoDelete':
        return over([
          { action: 's3:DeleteObject', resource: photoObject('images') },
          { action: 's3:DeleteObject', resource: photoObject('originals') },
        ]);
      case 'photoImport':
        return over([
          { action: 's3:GetObject', resource: photoObject('originals') },
          { action: 's3:PutObject', resource: photoObject('originals') },
          { action: 's3:PutObject', resource: photoObject('images') },
          { action: 's3:DeleteObject', resource: photoObject('originals') },
          { action: 's3:DeleteObject', resource: photoObject('images') },
        ]);
      case 'photoCdn':
        // CreateInvalidation on the photo distribution (CloudFront ARNs name no region).
        return over([
          {
            action: 'cloudfront:CreateInvalidation',
            resource: `arn:${PARTITION}:cloudfront::${ACCOUNT}:distribution/${app.refOf(app.service.photoCdn.photoDistribution.distribution)}`,
          },
        ]);
      case 'catalogueRead':
        return over([
          { action: 's3:GetObject', resource: catalogueObject() },
          { action: 's3:ListBucket', resource: app.arnOf(app.service.data.photoBucket) },
        ]);
      case 'catalogueWrite':
        return over([
          { action: 's3:GetObject', resource: catalogueObject() },
          { action: 's3:PutObject', resource: catalogueObject() },
          { action: 's3:ListBucket', resource: app.arnOf(app.service.data.photoBucket) },
        ]);
      case 'aiQueue':
        return over([{ action: 'sqs:SendMessage', resource: queueArn(async.aiQueue) }]);
      case 'webhookQueue':
        return over([{ action: 'sqs:SendMessage', resource: queueArn(async.webhookLadder.queue) }]);
      case 'email':
        // SES authorizes the sender's identity; the domain is the one ops verify.
        return over([
          {
            action: 'ses:SendEmail',
            resource: `arn:${PARTITION}:ses:${REGION}:${ACCOUNT}:identity/${SENDER.domain}`,
          },
        ]);
      case 'webhookSchedules':
        // What the ladder adapter did when run as this function (scheduler:CreateSchedule on the
        // schedule in its group, iam:PassRole of the scheduler role): see ladderOperationsOf.
        return ladderOperations.filter((op) => op.function === name && op.service !== 'sqs').map(neededOf);
      case 'bedrock':
        // Converse is authorized as bedrock:InvokeModel on the model (or the inference profile) it names.
        return over([
          {
            action: 'bedrock:InvokeModel',
            resource: INFERENCE_PROFILE_PREFIX.test(modelId)
              ? `arn:${PARTITION}:bedrock:${REGION}:${ACCOUNT}:inference-profile/${modelId}`
              : `arn:${PARTITION}:bedrock:${REGION}::foundation-model/${modelId}`,
          },
        ]);
      default:
        throw new Error(`unknown use ${String(use satisfies never)}`);
    }
  });
}

/** Per function, what it needs and its role (evaluated in `on`, the app as synthesized by default) does not allow. */
export async function missingGrants(
  fns: readonly FunctionRole[],
  needsOf: (name: string) => Needed[],
  on: SynthesizedApp = app,
): Promise<Record<string, string[]>> {
  const missing: Record<string, string[]> = {};
  for (const fn of fns) {
    const needs = needsOf(fn.name);
    const decided = await Promise.all(needs.map((needed) => on.decide({ principal: fn.roleArn, ...needed })));
    const refused = needs
      .filter((_, i) => decided[i] !== 'Allowed')
      .map((needed) => `${needed.action} on ${needed.resource}`);
    if (refused.length > 0) missing[fn.name] = refused.sort();
  }
  return missing;
}

/** A copy of the app in which each statement of the role of function `name` is what `edit` returns (undefined drops it). */
export function withEditedRole(name: string, edit: (statement: Json) => Json | undefined): SynthesizedApp {
  const fn = serviceFunctions().get(name);
  if (!fn) throw new Error(`no function ${name}`);
  return app.editedRole(fn.role, edit);
}

/**
 * Registers the permission checks of one test command (its own vitest project, run after the others):
 * every DynamoDB operation the command's int and e2e files recorded, and every call of the AWS
 * adapters the functions use, is allowed by the function's synthesized role. `npm test` also requires
 * a record of every function of the app (`everyFunctionRecorded`); `npm run test:slow` checks what its
 * own files recorded (the full fuzz reaches more of each handler than the gate's sample).
 */
export function describeGrantsOfRecordedOperations(run: {
  name: string;
  everyFunctionRecorded: boolean;
}): void {
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
    functions = app.functionRoles();
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

  describe(`IAM grants against the AWS operations the functions performed (${run.name})`, () => {
    it(`has records of this run${run.everyFunctionRecorded ? ' for every function of the app' : ''}`, () => {
      // Act
      // A function is covered when it performed an AWS operation, or was run (the stream consumer only
      // sends to the queue, a local adapter in tests: its grant is checked from its uses below).
      const silent = functions
        .map((fn) => fn.name)
        .filter((name) => !invoked.has(name) && !recorded.some((op) => op.function === name));
      // Assess
      expect(
        recorded.length,
        `no records under ${AWS_OPERATIONS_DIR}: run the whole command (${run.name})`,
      ).toBeGreaterThan(0);
      if (run.everyFunctionRecorded) {
        expect(silent, 'functions no integration or e2e test ran (cover them)').toEqual([]);
      }
      expect(functions.map((fn) => fn.name)).toEqual(
        expect.arrayContaining([...table.map((r) => r.operationId), ...Object.values(WORKER_ENTRIES)]),
      );
    });

    it('grants each function every DynamoDB action it performed, on the table or the index it named', async () => {
      // Act
      const missing = await missingGrants(functions, recordedNeeds);
      // Assess
      expect(missing).toEqual({});
    });

    it('grants each function what the AWS adapters it uses call: SQS SendMessage, SES SendEmail, Bedrock', async () => {
      // Act
      const missing = await missingGrants(functions, declaredNeeds);
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

    it('grants the webhook ladder what its AWS adapter called: a schedule in its group, the scheduler role passed', async () => {
      // Act
      const worker = WORKER_ENTRIES.webhookDelivery;
      const calls = ladderOperations.filter((op) => op.function === worker);
      const missing = await missingGrants(
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
}
