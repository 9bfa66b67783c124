import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { DEPLOY_CONTEXT, sharedTestApp } from './deploy-context.ts';
import { actionsOf, resourcesOf, statementsOf } from './iam-statements.ts';

type Json = Record<string, unknown>;

/** The rows as RouteDefinition (the `as const` rows without `uses` have no such key). */
const table: readonly RouteDefinition[] = routes;

/** A synthesized app, with what a test needs to look into its route functions. */
class Synthesized {
  readonly service: ServiceApp;
  readonly templates = new Map<string, Json>();

  constructor(service: ServiceApp) {
    this.service = service;
    for (const stack of service.app.node.findAll().filter((c): c is Stack => Stack.isStack(c))) {
      if (!stack.nested) this.templates.set(stack.stackName, Template.fromStack(stack).toJSON());
    }
  }

  /** A value as CloudFormation will see it: a weak cross-stack reference is replaced by the output's value. */
  resolve(value: unknown): unknown {
    const output = (value as { 'Fn::GetStackOutput'?: { StackName: string; OutputName: string } })?.[
      'Fn::GetStackOutput'
    ];
    if (!output) return value;
    const outputs = this.templates.get(output.StackName)?.Outputs as Record<string, { Value: unknown }>;
    return outputs?.[output.OutputName]?.Value;
  }

  route(operationId: string) {
    const group = this.service.api.routeGroups.find((g) => g.functions.has(operationId));
    if (!group) throw new Error(`no route group holds ${operationId}`);
    const fn = group.functions.get(operationId)!;
    const template = Template.fromStack(group);
    const functionId = group.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
    const environment = (
      template.toJSON().Resources[functionId].Properties as { Environment: { Variables: Json } }
    ).Environment.Variables;
    const statements = statementsOf(template, group, fn.role);
    return { environment, statements };
  }

  get aiQueueId(): string {
    const { async } = this.service;
    return async.getLogicalId(async.aiQueue.node.defaultChild as CfnQueue);
  }

  get imageQueueId(): string {
    const { async } = this.service;
    return async.getLogicalId(async.imageImport.queue.node.defaultChild as CfnQueue);
  }
}

/** `ses:SendEmail` resources for a sender: the identities of its domain and of the address. */
function sesIdentityArns(domain: string, address: string): unknown[] {
  return [domain, address].map((identity) => ({
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':ses:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:identity/${identity}`,
      ],
    ],
  }));
}

function assertUses(app: Synthesized, route: RouteDefinition, sender: { domain: string; address: string }) {
  // Act
  const { environment, statements } = app.route(route.operationId);
  const sqsStatements = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
  const onQueue = (queueId: string) =>
    sqsStatements.filter((s) => JSON.stringify(resourcesOf(s).map((r) => app.resolve(r))).includes(queueId));
  const sqs = onQueue(app.aiQueueId);
  const imageSqs = onQueue(app.imageQueueId);
  const ses = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('ses:')));
  const uses = new Set(route.uses ?? []);

  // Assess
  if (uses.has('aiQueue')) {
    // An export of the async stack (strong cross-stack reference), named after the queue.
    expect(JSON.stringify(app.resolve(environment.AI_QUEUE_URL)), route.operationId).toContain(app.aiQueueId);
    expect(sqs.flatMap(actionsOf), route.operationId).toEqual(['sqs:SendMessage']);
    const queueArns = sqs.flatMap(resourcesOf).map((r) => JSON.stringify(app.resolve(r)));
    expect(queueArns).toEqual([expect.stringContaining(app.aiQueueId)]);
  } else {
    expect(environment.AI_QUEUE_URL, route.operationId).toBeUndefined();
    expect(sqs, route.operationId).toEqual([]);
  }
  if (uses.has('imageQueue')) {
    expect(JSON.stringify(app.resolve(environment.IMAGE_IMPORT_QUEUE_URL)), route.operationId).toContain(
      app.imageQueueId,
    );
    expect(imageSqs.flatMap(actionsOf), route.operationId).toEqual(['sqs:SendMessage']);
  } else {
    expect(environment.IMAGE_IMPORT_QUEUE_URL, route.operationId).toBeUndefined();
    expect(imageSqs, route.operationId).toEqual([]);
  }
  // No queue but the ones its row names.
  expect(sqsStatements.length, route.operationId).toBe(sqs.length + imageSqs.length);
  if (uses.has('email')) {
    expect(environment.EMAIL_FROM, route.operationId).toBe(sender.address);
    expect([...new Set(ses.flatMap(actionsOf))], route.operationId).toEqual(['ses:SendEmail']);
    // The sender's identities, and (for the SES sandbox's recipient check) every identity of the
    // account only with this sender (ServiceFunction.bindEmailSender).
    const onSender = ses.filter((s) => s.Condition === undefined);
    const onRecipients = ses.filter((s) => s.Condition !== undefined);
    expect(sorted(onSender.flatMap(resourcesOf))).toEqual(
      sorted(sesIdentityArns(sender.domain, sender.address)),
    );
    expect(onRecipients.flatMap(resourcesOf)).toEqual(sesIdentityArns('*', '*').slice(0, 1));
    expect(onRecipients.map((s) => s.Condition)).toEqual([
      { StringEquals: { 'ses:FromAddress': sender.address } },
    ]);
  } else {
    expect(environment.EMAIL_FROM, route.operationId).toBeUndefined();
    expect(ses, route.operationId).toEqual([]);
  }
}

/** Resources in a stable order (IAM policy minimization sorts them). */
function sorted(values: unknown[]): string[] {
  return values.map((v) => JSON.stringify(v)).sort();
}

let real: Synthesized;

beforeAll(() => {
  // Prepare + Act: the real route table, templates only, with the tests' sender.
  real = new Synthesized(sharedTestApp());
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

describe('what a route row uses besides the table', () => {
  it('tags the rows that queue photo imports or send email (AI work is queued by stream reactions)', () => {
    // Act
    const uses = Object.fromEntries(table.filter((r) => r.uses).map((r) => [r.operationId, r.uses]));

    // Assess
    expect(uses).toMatchObject({ importPropertyImage: ['imageQueue'], sendLeadMatches: ['email'] });
    expect(Object.values(uses).flat()).not.toContain('aiQueue');
  });

  it('gives each route of the table exactly what its row uses: the AI queue, the import queue, the sender, or neither', () => {
    for (const route of table) {
      assertUses(real, route, { domain: 'example.com', address: DEPLOY_CONTEXT.emailFrom });
    }
    expect(table.some((r) => r.uses?.includes('email'))).toBe(true);
    expect(table.some((r) => !r.uses?.length)).toBe(true);
  });

  it('binds both to a row that uses both, with the sender of context emailFrom', () => {
    // Prepare
    const [base] = table;
    const synthetic: RouteDefinition[] = [
      { ...base!, operationId: 'both', path: '/v1/both', uses: ['aiQueue', 'email'], tag: 'Synthetic' },
      { ...base!, operationId: 'neither', path: '/v1/neither', uses: [], tag: 'Synthetic' },
    ];
    const sender = { domain: 'mail.agency.test', address: 'leads@mail.agency.test' };

    // Act
    const app = new Synthesized(
      buildApp({
        stage: 'test',
        bundle: false,
        routes: synthetic,
        context: { ...DEPLOY_CONTEXT, emailFrom: sender.address },
      }),
    );

    // Assess
    for (const route of synthetic) assertUses(app, route, sender);
  });
});

describe('the stacks', () => {
  it('build the AI queue before the API: Api depends on Async, never the other way round', () => {
    // Act
    const apiDependencies = real.service.api.dependencies.map((s) => s.stackName);
    const asyncDependencies = real.service.async.dependencies.map((s) => s.stackName);

    // Assess
    expect(apiDependencies.sort()).toEqual([
      'ListingsLeads-test-Async',
      'ListingsLeads-test-Data',
      'ListingsLeads-test-PhotoCdn',
    ]);
    expect(asyncDependencies.sort()).toEqual(['ListingsLeads-test-Data', 'ListingsLeads-test-PhotoCdn']);
  });

  it('make cross-stack references exports (test/infra/data.test.ts checks every import)', () => {
    // Act
    const asyncOutputs = Object.values(
      (real.templates.get('ListingsLeads-test-Async')?.Outputs ?? {}) as Record<string, Json>,
    );

    // Assess: the API reads the photo import queue from the async stack through an export.
    const queueOutputs = asyncOutputs.filter((o) => JSON.stringify(o.Value).includes('ImageImportQueues'));
    expect(queueOutputs.length).toBeGreaterThan(0);
    for (const output of queueOutputs) expect(output.Export).toBeDefined();
  });
});

describe('the sender (context emailFrom)', () => {
  it('refuses anything but a plain email address', () => {
    // Prepare
    const build = (emailFrom: string) => () =>
      buildApp({ stage: 'test', bundle: false, context: { ...DEPLOY_CONTEXT, emailFrom } });

    // Act + Assess
    expect(build('not-an-address')).toThrow(/Context emailFrom must be a plain email address/);
    expect(build('Leads <leads@agency.test>')).toThrow(/Context emailFrom/);
    expect(build('leads@localhost')).toThrow(/Context emailFrom/);
    expect(build('*@agency.test')).toThrow(/Context emailFrom/);
    expect(build('leads@agency.test')).not.toThrow();
  });
});
