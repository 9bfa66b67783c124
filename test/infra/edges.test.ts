/**
 * Every edge of the architecture where one AWS principal acts on another's resource, evaluated from
 * the synthesized templates by an IAM policy evaluator (test/support/iam-policies.ts): identity and
 * resource policies, trust and key policies, Allow and Deny, conditions, in the request context AWS
 * sends (aws:SourceArn, aws:SourceAccount, aws:SecureTransport). Each edge is checked twice: it is
 * allowed as synthesized, and it is refused once the statement that grants it is removed from the
 * template (planted here), so that the check is shown to depend on that statement.
 *
 * The functions' own calls (DynamoDB, SQS, S3, SES, Bedrock, Scheduler) are checked against what the
 * integration and e2e runs recorded, in test/infra/permissions.test.ts.
 */

import { randomUUID } from 'node:crypto';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.ts';
import {
  ACCOUNT,
  type AccessRequest,
  dropStatements,
  PARTITION,
  REGION,
  SynthesizedApp,
} from '../support/iam-policies.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';
import { actionsOf } from './iam-statements.ts';

type Json = Record<string, unknown>;

/** Another account, for the confused-deputy checks. */
const OTHER_ACCOUNT = '444455556666';
/** Every call between services and to AWS APIs goes over TLS. */
const OVER_TLS = { 'aws:SecureTransport': 'true' };

let app: SynthesizedApp;

beforeAll(() => {
  app = new SynthesizedApp(buildApp({ stage: 'edges', bundle: false, env: {}, context: DEPLOY_CONTEXT }));
}, 300_000);

/** A request as one readable line: who, what, on what, and from where when a source is sent. */
function lineOf(r: AccessRequest): string {
  const source = r.context?.['aws:SourceArn'];
  const plain = r.context?.['aws:SecureTransport'] === 'false' ? ' without TLS' : '';
  return `${r.principal} ${r.action} ${r.resource}${source ? ` from ${String(source)}` : ''}${plain}`;
}

/** The decision for each request, keyed by its line, so that a failure names the request. */
async function decisions(
  on: SynthesizedApp,
  requests: readonly AccessRequest[],
): Promise<Record<string, string>> {
  const entries = await Promise.all(requests.map(async (r) => [lineOf(r), await on.decide(r)] as const));
  return Object.fromEntries(entries);
}

/** `requests` mapped to `decision` each, in the shape `decisions` returns. */
function each(requests: readonly AccessRequest[], decision: string): Record<string, string> {
  return Object.fromEntries(requests.map((r) => [lineOf(r), decision]));
}

const principalOf = (statement: Json): string => JSON.stringify(statement.Principal ?? '');

type Resources = Record<string, { Type: string; Properties?: Json }>;

/** A template edit that removes, from the policy `property` of each resource of `type`, the statements `drop` selects. */
function dropFrom(type: string, property: string, drop: (statement: Json) => boolean) {
  return (resources: Resources) => {
    for (const resource of Object.values(resources)) {
      if (resource.Type === type && resource.Properties?.[property]) {
        dropStatements(resource.Properties[property], drop);
      }
    }
  };
}

/** A template edit that removes the Lambda permissions `drop` selects (by their properties). */
function dropPermissions(drop: (properties: Json) => boolean) {
  return (resources: Resources) => {
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type === 'AWS::Lambda::Permission' && drop(resource.Properties ?? {}))
        delete resources[id];
    }
  };
}

/** The ARN of a CloudFront distribution whose Ref (its id) is `id`. */
const distributionArn = (id: string, account = ACCOUNT) =>
  `arn:${PARTITION}:cloudfront::${account}:distribution/${id}`;

describe('EventBridge Scheduler sends due webhook retries to the delivery queue', () => {
  const ladder = () => app.service.async.webhookLadder;
  /** What Scheduler sends when a schedule of `group` (an ARN) fires: it assumes the role first. */
  const assume = (groupArn: string, account = ACCOUNT): AccessRequest => ({
    principal: 'scheduler.amazonaws.com',
    action: 'sts:AssumeRole',
    resource: app.arnOf(ladder().schedulerRole),
    context: { 'aws:SourceArn': groupArn, 'aws:SourceAccount': account, ...OVER_TLS },
  });
  const send = (): AccessRequest => ({
    principal: app.arnOf(ladder().schedulerRole),
    action: 'sqs:SendMessage',
    resource: app.arnOf(ladder().queue),
    context: OVER_TLS,
  });

  it('lets Scheduler assume the role for a schedule of the group (aws:SourceArn is the group ARN), and the role send to the queue', async () => {
    // Prepare
    const groupArn = app.arnOf(ladder().scheduleGroup);
    // Act
    const decided = await decisions(app, [assume(groupArn), send()]);
    // Assess
    expect(groupArn).toMatch(new RegExp(`^arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/[^/]+$`));
    expect(decided).toEqual(each([assume(groupArn), send()], 'Allowed'));
  });

  it('refuses the role to schedules of another group or of another account (confused deputy)', async () => {
    // Prepare
    const groupArn = app.arnOf(ladder().scheduleGroup);
    const requests = [
      assume(groupArn.replace(/schedule-group\/.*$/, 'schedule-group/default')),
      assume(groupArn.replace(ACCOUNT, OTHER_ACCOUNT), OTHER_ACCOUNT),
    ];
    // Act
    const decided = await decisions(app, requests);
    // Assess
    expect(decided).toEqual(each(requests, 'ImplicitlyDenied'));
  });

  it('lets the role put a schedule Scheduler gave up on in the schedules’ dead-letter queue, and not without its grant', async () => {
    // Prepare: what Scheduler sends with the schedule's role when the target keeps failing.
    const role = ladder().schedulerRole;
    const deadLetter: AccessRequest = {
      principal: app.arnOf(role),
      action: 'sqs:SendMessage',
      resource: app.arnOf(ladder().scheduleDeadLetterQueue),
      context: OVER_TLS,
    };
    const dlqArn = app.arnOf(ladder().scheduleDeadLetterQueue);
    // The grant shares its statement with the queue's: the planted edit removes only the DLQ from it.
    const isDeadLetter = (resource: unknown) => JSON.stringify(resource).includes('ScheduleDeadLetterQueue');
    const planted = app.editedRole(role, (s) => {
      const resources = ([] as unknown[]).concat(s.Resource ?? []);
      const kept = resources.filter((r) => !isDeadLetter(r));
      return kept.length === 0 ? undefined : { ...s, Resource: kept };
    });
    // Act
    const decided = await decisions(app, [deadLetter, send()]);
    const withoutGrant = await decisions(planted, [deadLetter, send()]);
    // Assess
    expect(dlqArn).toMatch(/^arn:aws:sqs:/);
    expect(Object.values(decided)).toEqual(['Allowed', 'Allowed']);
    expect(Object.values(withoutGrant)).toEqual(['ImplicitlyDenied', 'Allowed']);
  });

  it('fails without the trust statement, or without the role’s sqs:SendMessage', async () => {
    // Prepare
    const role = ladder().schedulerRole;
    const noTrust = app.edited(
      role,
      dropFrom('AWS::IAM::Role', 'AssumeRolePolicyDocument', () => true),
    );
    const noSend = app.editedRole(role, (s) => (actionsOf(s).includes('sqs:SendMessage') ? undefined : s));
    const groupArn = app.arnOf(ladder().scheduleGroup);
    // Act
    const [trust, sending] = await Promise.all([noTrust.decide(assume(groupArn)), noSend.decide(send())]);
    // Assess
    expect({ trust, sending }).toEqual({ trust: 'ImplicitlyDenied', sending: 'ImplicitlyDenied' });
  });
});

describe('CloudWatch alarms notify the alarm topic', () => {
  const alarmArns = () =>
    app.service.app.node
      .findAll()
      .filter((c): c is Alarm => c instanceof Alarm)
      .map((alarm) => app.arnOf(alarm));
  /** What CloudWatch sends when `alarmArn` changes state: a publish over TLS, on behalf of the alarm. */
  const publish = (alarmArn: string, tls = 'true'): AccessRequest => ({
    principal: 'cloudwatch.amazonaws.com',
    action: 'sns:Publish',
    resource: app.arnOf(app.service.async.alarmTopic.topic),
    context: { 'aws:SourceArn': alarmArn, 'aws:SourceAccount': ACCOUNT, 'aws:SecureTransport': tls },
  });
  /** The encrypted topic makes SNS use the key on the publisher's behalf. */
  const useKey = (action: string): AccessRequest => ({
    principal: 'cloudwatch.amazonaws.com',
    action,
    resource: app.arnOf(app.service.async.alarmTopic.key),
    context: { 'kms:ViaService': `sns.${REGION}.amazonaws.com`, ...OVER_TLS },
  });
  const keyUses = () => [useKey('kms:GenerateDataKey'), useKey('kms:Decrypt')];

  it('lets CloudWatch publish every alarm of the app to the topic, and use the topic’s key', async () => {
    // Prepare
    const requests = [...alarmArns().map((arn) => publish(arn)), ...keyUses()];
    // Act
    const decided = await decisions(app, requests);
    // Assess
    expect(alarmArns().length).toBeGreaterThan(30);
    expect(decided).toEqual(each(requests, 'Allowed'));
  });

  it('refuses a publish without TLS, and one for an alarm of another account', async () => {
    // Prepare
    const [alarm] = alarmArns();
    const other = publish(String(alarm).replace(ACCOUNT, OTHER_ACCOUNT));
    other.context = { ...other.context, 'aws:SourceAccount': OTHER_ACCOUNT };
    // Act
    const decided = await decisions(app, [publish(String(alarm), 'false'), other]);
    // Assess
    expect(Object.values(decided)).toEqual(['ExplicitlyDenied', 'ImplicitlyDenied']);
  });

  it('fails without the topic policy’s Allow for CloudWatch, or without the key policy’s', async () => {
    // Prepare
    const { topic, key } = app.service.async.alarmTopic;
    const byCloudWatch = (s: Json) =>
      s.Effect === 'Allow' && principalOf(s).includes('cloudwatch.amazonaws.com');
    const noTopicGrant = app.edited(topic, dropFrom('AWS::SNS::TopicPolicy', 'PolicyDocument', byCloudWatch));
    const noKeyGrant = app.edited(key, dropFrom('AWS::KMS::Key', 'KeyPolicy', byCloudWatch));
    const [alarm] = alarmArns();
    // Act
    const publishing = await noTopicGrant.decide(publish(String(alarm)));
    const keys = await decisions(noKeyGrant, keyUses());
    // Assess
    expect(publishing).toBe('ImplicitlyDenied');
    expect(keys).toEqual(each(keyUses(), 'ImplicitlyDenied'));
  });
});

describe('EventBridge rules deliver to their targets and dead-letter queues', () => {
  /** For each rule target: the invoke (a function) and the dead-letter send, as EventBridge makes them. */
  const deliveries = (on: SynthesizedApp) =>
    on.resourcesOfType('AWS::Events::Rule').flatMap((rule) =>
      (rule.properties.Targets as Json[]).flatMap((target) => {
        const context = {
          'aws:SourceArn': String(rule.arn),
          'aws:SourceAccount': ACCOUNT,
          ...OVER_TLS,
        };
        const deadLetterArn = (target.DeadLetterConfig as Json | undefined)?.Arn;
        return [
          {
            principal: 'events.amazonaws.com',
            action: 'lambda:InvokeFunction',
            resource: String(target.Arn),
            context,
          },
          ...(deadLetterArn
            ? [
                {
                  principal: 'events.amazonaws.com',
                  action: 'sqs:SendMessage',
                  resource: String(deadLetterArn),
                  context,
                },
              ]
            : []),
        ];
      }),
    );

  it('lets EventBridge invoke each rule’s function and send to its dead-letter queue', async () => {
    // Act
    const requests = deliveries(app);
    const decided = await decisions(app, requests);
    // Assess: every target of the app (the daily AI job, the webhook sweeper, the catalogue rebuilder)
    // has a dead-letter queue, and all are allowed.
    expect(requests.map((r) => r.action).sort()).toEqual([
      'lambda:InvokeFunction',
      'lambda:InvokeFunction',
      'lambda:InvokeFunction',
      'sqs:SendMessage',
      'sqs:SendMessage',
      'sqs:SendMessage',
    ]);
    expect(decided).toEqual(each(requests, 'Allowed'));
  });

  it('fails without the dead-letter queue’s Allow for EventBridge, or without the function’s permission', async () => {
    // Prepare
    const byEvents = (s: Json) => s.Effect === 'Allow' && principalOf(s).includes('events.amazonaws.com');
    const deadLetters = app.service.async.aiResumeDeadLetterQueue;
    const noQueueGrant = app.edited(
      deadLetters,
      dropFrom('AWS::SQS::QueuePolicy', 'PolicyDocument', byEvents),
    );
    const noInvoke = app.edited(
      deadLetters,
      dropPermissions((p) => p.Principal === 'events.amazonaws.com'),
    );
    const requests = deliveries(app);
    // Act
    const withoutQueueGrant = await decisions(noQueueGrant, requests);
    const withoutInvoke = await decisions(noInvoke, requests);
    // Assess
    // Each rule's invoke is still allowed; each dead-letter send is not (the aiResume one named below).
    expect(Object.values(withoutQueueGrant).sort()).toEqual([
      'Allowed',
      'Allowed',
      'Allowed',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
    ]);
    const sendLine = `events.amazonaws.com sqs:SendMessage ${app.arnOf(deadLetters)} `;
    expect(Object.entries(withoutQueueGrant).find(([line]) => line.startsWith(sendLine))?.[1]).toBe(
      'ImplicitlyDenied',
    );
    expect(Object.values(withoutInvoke).sort()).toEqual([
      'Allowed',
      'Allowed',
      'Allowed',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
    ]);
  });
});

describe('CloudFront reads the gallery photos from the bucket (Origin Access Control)', () => {
  const bucketArn = () => app.arnOf(app.service.data.photoBucket);
  const key = (prefix: string) =>
    `${bucketArn()}/${prefix}${randomUUID()}/${randomUUID()}/${randomUUID()}.jpg`;
  /** Every distribution of the app (the photo CDN, the site's /media/*), as OAC signs for it. */
  const distributions = () =>
    app.resourcesOfType('AWS::CloudFront::Distribution').map((d) => distributionArn(d.ref));
  const read = (object: string, sourceArn: string, account = ACCOUNT): AccessRequest => ({
    principal: 'cloudfront.amazonaws.com',
    action: 's3:GetObject',
    resource: object,
    context: {
      'aws:SourceArn': sourceArn,
      'aws:SourceAccount': account,
      's3:TlsVersion': '1.3',
      ...OVER_TLS,
    },
  });

  it('lets each distribution of the account read images/*', async () => {
    // Prepare
    const requests = distributions().map((d) => read(key('images/'), d));
    // Act
    const decided = await decisions(app, requests);
    // Assess
    expect(requests).toHaveLength(2);
    expect(decided).toEqual(each(requests, 'Allowed'));
  });

  it('refuses uploads/*, the kept originals/*, keys outside images/, and distributions of another account', async () => {
    // Prepare
    const [photoCdn] = distributions();
    const requests = [
      ...distributions().flatMap((d) => [
        read(key('uploads/'), d),
        read(key('originals/'), d),
        read(key(''), d),
        read(key('imagesX/'), d),
      ]),
      read(key('images/'), distributionArn('EOTHER', OTHER_ACCOUNT), OTHER_ACCOUNT),
    ];
    // Act
    const decided = await decisions(app, requests);
    // Assess
    expect(photoCdn).toBeDefined();
    expect(decided).toEqual(each(requests, 'ImplicitlyDenied'));
  });

  it('fails without the bucket policy’s gallery grant', async () => {
    // Prepare
    const byCloudFront = (s: Json) =>
      s.Effect === 'Allow' && principalOf(s).includes('cloudfront.amazonaws.com');
    const noGrant = app.edited(
      app.service.data.photoBucket,
      dropFrom('AWS::S3::BucketPolicy', 'PolicyDocument', byCloudFront),
    );
    const requests = distributions().map((d) => read(key('images/'), d));
    // Act
    const decided = await decisions(noGrant, requests);
    // Assess
    expect(decided).toEqual(each(requests, 'ImplicitlyDenied'));
  });
});

describe('API Gateway invokes the function of each route', () => {
  /** Each route with the invoke API Gateway makes for it: aws:SourceArn is the route's execute-api ARN. */
  const invokes = (on: SynthesizedApp) =>
    on.resourcesOfType('AWS::ApiGatewayV2::Route').map((route) => {
      const target = String(route.properties.Target).replace(/^integrations\//, '');
      const integration = on
        .resourcesOfType('AWS::ApiGatewayV2::Integration')
        .find((i) => i.stack === route.stack && i.ref === target);
      const [method, path] = String(route.properties.RouteKey).split(' ') as [string, string];
      return {
        principal: 'apigateway.amazonaws.com',
        action: 'lambda:InvokeFunction',
        resource: String(integration?.properties.IntegrationUri),
        context: {
          'aws:SourceArn': `arn:${PARTITION}:execute-api:${REGION}:${ACCOUNT}:${String(route.properties.ApiId)}/$default/${method}${path}`,
          'aws:SourceAccount': ACCOUNT,
          ...OVER_TLS,
        },
      } satisfies AccessRequest;
    });

  it('lets API Gateway invoke each route’s function for that route', async () => {
    // Act
    const requests = invokes(app);
    const decided = await decisions(app, requests);
    // Assess
    expect(requests.length).toBeGreaterThan(60);
    expect(decided).toEqual(each(requests, 'Allowed'));
  });

  it('refuses an invoke from another API', async () => {
    // Prepare
    const [first] = invokes(app);
    const other = {
      ...first!,
      context: {
        ...first!.context,
        'aws:SourceArn': first!.context['aws:SourceArn'].replace(/:[^:/]+\/\$default/, ':otherapi/$default'),
      },
    };
    // Act
    const decided = await app.decide(other);
    // Assess
    expect(decided).toBe('ImplicitlyDenied');
  });

  it('fails for the route whose permission is removed', async () => {
    // Prepare
    const fn = app.service.api.routeGroups
      .flatMap((g) => [...g.functions])
      .find(([id]) => id === 'getLead')?.[1];
    if (!fn) throw new Error('no getLead function');
    const functionId = app.logicalId(fn.fn);
    const noPermission = app.edited(
      fn.fn,
      dropPermissions((p) => JSON.stringify(p.FunctionName).includes(`"${functionId}"`)),
    );
    const requests = invokes(app);
    // Act
    const decided = await decisions(noPermission, requests);
    // Assess
    const refused = Object.entries(decided)
      .filter(([, d]) => d !== 'Allowed')
      .map(([line]) => line);
    expect(refused).toEqual([
      expect.stringMatching(
        new RegExp(
          `^apigateway.amazonaws.com lambda:InvokeFunction ${app.arnOf(fn.fn)} from .*/GET/v1/leads/\\{lead_id\\}$`,
        ),
      ),
    ]);
  });
});

describe('the event source mappings read their stream and queues with the consuming function’s role', () => {
  /** What Lambda's poller does for each mapping, as the function's role (AWS's list for each source). */
  const polls = (on: SynthesizedApp) =>
    on.resourcesOfType('AWS::Lambda::EventSourceMapping').flatMap((mapping) => {
      const fn = on
        .resourcesOfType('AWS::Lambda::Function')
        .find((f) => f.stack === mapping.stack && f.ref === mapping.properties.FunctionName);
      const principal = String(fn?.properties.Role);
      const source = String(mapping.properties.EventSourceArn);
      const onFailure = (
        (mapping.properties.DestinationConfig as Json | undefined)?.OnFailure as Json | undefined
      )?.Destination;
      const as = (action: string, resource: string): AccessRequest => ({
        principal,
        action,
        resource,
        context: OVER_TLS,
      });
      const reads = source.includes(':sqs:')
        ? ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'].map((a) => as(a, source))
        : [
            ...['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map((a) =>
              as(a, source),
            ),
            as('dynamodb:ListStreams', '*'),
          ];
      return [...reads, ...(onFailure ? [as('sqs:SendMessage', String(onFailure))] : [])];
    });

  it('lets each mapping’s role read its source and send failures to its on-failure destination', async () => {
    // Act
    const requests = polls(app);
    const decided = await decisions(app, requests);
    // Assess: the stream consumer and the three queue workers.
    expect(new Set(requests.map((r) => r.resource.split(':')[2])).size).toBeGreaterThanOrEqual(2);
    expect(requests.filter((r) => r.action === 'sqs:ReceiveMessage')).toHaveLength(3);
    expect(requests.filter((r) => r.action === 'dynamodb:GetRecords')).toHaveLength(1);
    expect(decided).toEqual(each(requests, 'Allowed'));
  });

  it('fails when the stream consumer loses dynamodb:GetRecords, or the webhook worker sqs:ReceiveMessage', async () => {
    // Prepare
    const without = (fnRole: Parameters<SynthesizedApp['editedRole']>[0], action: string) =>
      app.editedRole(fnRole, (s) => {
        const kept = actionsOf(s).filter((a) => a !== action);
        return kept.length === 0 ? undefined : { ...s, Action: kept };
      });
    const consumer = app.service.async.workers.get('streamConsumer');
    const webhooks = app.service.async.workers.get('webhookDelivery');
    if (!consumer || !webhooks) throw new Error('no stream consumer or webhook worker');
    // Act
    const noRecords = await decisions(without(consumer.role, 'dynamodb:GetRecords'), polls(app));
    const noReceive = await decisions(without(webhooks.role, 'sqs:ReceiveMessage'), polls(app));
    // Assess
    const refused = (decided: Record<string, string>) =>
      Object.entries(decided)
        .filter(([, d]) => d !== 'Allowed')
        .map(([line]) => line.split(' ')[1]);
    expect(refused(noRecords)).toEqual(['dynamodb:GetRecords']);
    expect(refused(noReceive)).toEqual(['sqs:ReceiveMessage']);
  });
});

describe('the presigned photo upload (a PUT signed by the upload-minting function’s role)', () => {
  const minter = () => {
    const fn = app.service.api.routeGroups
      .flatMap((g) => [...g.functions])
      .find(([id]) => id === 'createPropertyImageUpload')?.[1];
    if (!fn) throw new Error('no createPropertyImageUpload function');
    return fn;
  };
  /** The browser's PUT with the presigned URL: over TLS, authenticated by the query string. */
  const put = (on: SynthesizedApp, prefix: string, tls = 'true'): AccessRequest => ({
    principal: on.arnOf(minter().role),
    action: 's3:PutObject',
    resource: `${on.arnOf(on.service.data.photoBucket)}/${prefix}${randomUUID()}/${randomUUID()}/${randomUUID()}`,
    context: {
      'aws:SecureTransport': tls,
      's3:TlsVersion': '1.3',
      's3:authType': 'REST-QUERY-STRING',
      's3:signatureversion': 'AWS4-HMAC-SHA256',
    },
  });

  it('is allowed under uploads/ and nowhere else', async () => {
    // Act
    const allowed = await app.decide(put(app, 'uploads/'));
    const elsewhere = await decisions(app, [put(app, 'images/'), put(app, ''), put(app, 'uploadsX/')]);
    const plain = await app.decide(put(app, 'uploads/', 'false'));
    // Assess
    expect(allowed).toBe('Allowed');
    expect(Object.values(elsewhere)).toEqual(['ImplicitlyDenied', 'ImplicitlyDenied', 'ImplicitlyDenied']);
    expect(plain).toBe('ExplicitlyDenied');
  });

  it('fails when the role’s PutObject grant names images/ instead of uploads/', async () => {
    // Prepare
    const moved = app.editedRole(minter().role, (s) =>
      actionsOf(s).includes('s3:PutObject')
        ? { ...s, Resource: JSON.parse(JSON.stringify(s.Resource).replaceAll('/uploads/', '/images/')) }
        : s,
    );
    // Act
    const decided = await moved.decide(put(moved, 'uploads/'));
    // Assess
    expect(decided).toBe('ImplicitlyDenied');
  });
});
