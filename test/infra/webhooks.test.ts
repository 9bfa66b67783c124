import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { operationParameters, routeKeyPaths } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import type { ServiceApp } from '../../lib/app.ts';
import type { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { sharedTestApp } from './deploy-context.ts';
import { actionsOf, statementsOf } from './iam-statements.ts';

let service: ServiceApp;
let template: Template;

beforeAll(() => {
  service = sharedTestApp();
  template = Template.fromStack(service.async);
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  service.async.getLogicalId(construct.node.defaultChild as CfnQueue);

/** What the async stack grants `role`. */
const grantedTo = (role: { node: { defaultChild?: unknown } }) => statementsOf(template, service.async, role);

function envOf(fn: ServiceFunction): Record<string, unknown> {
  const id = service.async.getLogicalId(fn.fn.node.defaultChild as CfnFunction);
  return template.toJSON().Resources[id].Properties.Environment.Variables;
}

describe('the webhook ladder', () => {
  it('has a delivery queue that redrives to its dead-letter queue after 5 receives, both encrypted', () => {
    const ladder = service.async.webhookLadder;
    const resources = template.toJSON().Resources;
    const queue = resources[idOf(ladder.queue)].Properties;
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [idOf(ladder.deadLetterQueue), 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(queue.VisibilityTimeout).toBe(360);
    expect(resources[idOf(ladder.deadLetterQueue)].Properties.SqsManagedSseEnabled).toBe(true);
  });

  it('feeds the worker from the queue, reporting partial batch failures', () => {
    const workerId = service.async.getLogicalId(
      service.async.webhookLadder.worker.fn.node.defaultChild as CfnFunction,
    );
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      EventSourceArn: { 'Fn::GetAtt': [idOf(service.async.webhookLadder.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('has its own schedule group', () => {
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
  });

  it("gives Scheduler a role that can only send to the delivery queue (and the schedules' DLQ), assumed only by Scheduler", () => {
    const role = service.async.webhookLadder.schedulerRole;
    const statements = grantedTo(role);
    expect(statements.map((s) => [actionsOf(s), s.Resource])).toEqual([
      [
        ['sqs:SendMessage'],
        [
          { 'Fn::GetAtt': [idOf(service.async.webhookLadder.queue), 'Arn'] },
          { 'Fn::GetAtt': [idOf(service.async.webhookLadder.scheduleDeadLetterQueue), 'Arn'] },
        ],
      ],
    ]);
    const roleProps = template.toJSON().Resources[idOf(role)].Properties;
    const trust = roleProps.AssumeRolePolicyDocument.Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0].Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    expect(JSON.stringify(trust[0].Condition)).toContain('aws:SourceAccount');
    expect(roleProps.ManagedPolicyArns).toBeUndefined();
  });

  it('lets the worker send to the queue, create schedules in its group only, and pass only the scheduler role', () => {
    const ladder = service.async.webhookLadder;
    const statements = grantedTo(ladder.worker.role);
    const byAction = (a: string) => statements.filter((s) => actionsOf(s).includes(a));
    expect(byAction('sqs:SendMessage').map((s) => s.Resource)).toEqual([
      { 'Fn::GetAtt': [idOf(ladder.queue), 'Arn'] },
    ]);
    const create = byAction('scheduler:CreateSchedule');
    expect(create).toHaveLength(1);
    expect(JSON.stringify(create[0]?.Resource)).toContain(
      `:schedule/${service.async.resolve(ladder.scheduleGroup.scheduleGroupName)}/*`,
    );
    const pass = byAction('iam:PassRole');
    expect(pass.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [idOf(ladder.schedulerRole), 'Arn'] }]);
    expect(pass[0]?.Condition).toEqual({
      StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
    });
    const dynamo = statements.flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).not.toContain('dynamodb:PutItem');
    expect(dynamo).not.toContain('dynamodb:Scan');
  });

  it("configures the worker with the queue, its ARN, the schedule group, the role and the schedules' DLQ; never the local switch", () => {
    const ladder = service.async.webhookLadder;
    const env = envOf(ladder.worker);
    expect(env.WEBHOOK_QUEUE_URL).toEqual({ Ref: idOf(ladder.queue) });
    expect(env.WEBHOOK_QUEUE_ARN).toEqual({ 'Fn::GetAtt': [idOf(ladder.queue), 'Arn'] });
    expect(env.WEBHOOK_SCHEDULE_GROUP).toEqual(service.async.resolve(ladder.scheduleGroup.scheduleGroupName));
    expect(env.WEBHOOK_SCHEDULER_ROLE_ARN).toEqual({ 'Fn::GetAtt': [idOf(ladder.schedulerRole), 'Arn'] });
    expect(env.WEBHOOK_SCHEDULE_DLQ_ARN).toEqual({
      'Fn::GetAtt': [idOf(ladder.scheduleDeadLetterQueue), 'Arn'],
    });
    // The disable notice is sent by the stream consumer (the endpoint is its outbox): no email here.
    expect(env.EMAIL_FROM).toBeUndefined();
    expect(env.LOCAL_ALLOW_PRIVATE_URLS).toBeUndefined();
    expect(env.RETRY_DELAY_SCALE).toBeUndefined();
  });

  it('lets the stream consumer create deliveries and queue them', () => {
    const env = envOf(service.async.streamConsumer);
    expect(env.WEBHOOK_QUEUE_URL).toEqual({ Ref: idOf(service.async.webhookLadder.queue) });
    const all = grantedTo(service.async.streamConsumer.role).flatMap(actionsOf);
    expect(all).toContain('dynamodb:PutItem');
  });
});

describe('routes with an action suffix after a path variable', () => {
  it('become API Gateway route keys whose variables span whole segments', () => {
    const api = Template.fromStack(
      service.api.routeGroups.find((g) => g.node.id === 'WebhooksRoutes') as never,
    );
    const keys = Object.values(api.findResources('AWS::ApiGatewayV2::Route')).map(
      (r) => r.Properties.RouteKey as string,
    );
    expect(keys).toContain('POST /v1/webhooks/{endpoint_id}/deliveries/{delivery_id}');
    for (const key of keys) {
      const path = key.split(' ')[1] as string;
      // Each segment is a literal without braces, or exactly one variable.
      for (const segment of path.split('/').slice(1)) {
        expect(segment).toMatch(/^(\{\w+\+?\}|[A-Za-z0-9._:-]+)$/);
      }
    }
  });

  it('leave no two rows on one API Gateway route key', () => {
    const keyPaths = routeKeyPaths(routes);
    const keys = routes.map((r) => `${r.method} ${keyPaths.get(r.operationId)}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('have the suffix taken off the parameter that API Gateway hands over, and no match without it', () => {
    const route = routes.find((r) => r.operationId === 'redeliverWebhookDelivery');
    expect(route).toBeDefined();
    const id = '0b3f8a52-0ad8-4a4b-9d4e-1c2a5f0e9a11';
    const routeKey = 'POST /v1/webhooks/{endpoint_id}/deliveries/{delivery_id}';
    expect(
      operationParameters(route as never, routeKey, { endpoint_id: id, delivery_id: `${id}:redeliver` }),
    ).toEqual({ endpoint_id: id, delivery_id: id });
    expect(
      operationParameters(route as never, routeKey, { endpoint_id: id, delivery_id: id }),
    ).toBeUndefined();
  });
});
