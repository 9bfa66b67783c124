import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { CATALOGUE_PREFIX } from '../../lib/constructs/catalogue-store-access.ts';
import { repoRoot } from '../../lib/constructs/service-function.ts';
import { DEPLOY_CONTEXT, sharedTestApp } from './deploy-context.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON, navigated freely here.
type Json = Record<string, any>;

/**
 * What a real account does with the synthesized templates, beyond what cdk-nag checks: Lambda's
 * recursive loop detection on the AI worker's own queue, the alarm of parked Owner notices, the
 * CloudFront policy names of several stages and regions in one account, the old versions of the
 * catalogue snapshots.
 */

let service: ServiceApp;

beforeAll(() => {
  service = sharedTestApp();
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

/** Every stack of `app`, nested ones included, with its template. */
function templatesOf(app: App): { stack: Stack; template: Json }[] {
  return app.node
    .findAll()
    .filter((c): c is Stack => Stack.isStack(c))
    .map((stack) => ({ stack, template: Template.fromStack(stack).toJSON() }));
}

/** The app of `stage` bound to `region`, as `cdk synth -c stage=… -c region=…` builds it. */
function appIn(stage: string, region: string): ServiceApp {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const app = new App({
    context: { ...cdkJson.context, ...DEPLOY_CONTEXT, region },
    builtinCloudFormationValidation: false,
  });
  return buildApp({ app, stage, bundle: false });
}

describe('the AI resume run on a Tenant of many listings', () => {
  it('lets the AI worker requeue to its own queue past Lambda’s 16-hop loop detection; no other function', () => {
    // Prepare: a resume run is one message per page of 500 listings, each sent by the worker to the
    // queue that invokes it; Lambda stops such a chain after 16 invocations unless the function allows it.
    const aiWorkerId = service.async.getLogicalId(service.async.aiWorker.fn.node.defaultChild as CfnFunction);

    // Act
    const allowing = templatesOf(service.app).flatMap(({ stack, template }) =>
      Object.entries((template.Resources ?? {}) as Json)
        .filter(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties?.RecursiveLoop === 'Allow')
        .map(([id]) => `${stack.stackName}/${id}`),
    );

    // Assess
    expect(allowing).toEqual([`${service.async.stackName}/${aiWorkerId}`]);
  });
});

describe('Owner notices the email service refuses for good', () => {
  it('alarm on OwnerNoticesParked, to the alarm topic, on ALARM and back to OK', () => {
    // Prepare
    const template = Template.fromStack(service.async).toJSON();
    const topicId = service.async.getLogicalId(
      service.async.alarmTopic.topic.node.defaultChild as CfnElement,
    );

    // Act
    const alarm = Object.values((template.Resources ?? {}) as Json).find(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties?.MetricName === 'OwnerNoticesParked',
    )?.Properties as Json | undefined;

    // Assess
    expect(alarm).toMatchObject({
      Namespace: 'ListingsLeads',
      Dimensions: [{ Name: 'service', Value: 'listings-leads' }],
      Statistic: 'Sum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
  });
});

describe('CloudFront policies of several stages and regions in one account', () => {
  /** The name of every cache and origin request policy of an app, by its kind. */
  function policyNames(app: ServiceApp): { kind: string; name: string }[] {
    return templatesOf(app.app).flatMap(({ template }) =>
      Object.values((template.Resources ?? {}) as Json).flatMap((r) => {
        if (r.Type === 'AWS::CloudFront::CachePolicy')
          return [{ kind: 'cache', name: JSON.stringify(r.Properties.CachePolicyConfig.Name) }];
        if (r.Type === 'AWS::CloudFront::OriginRequestPolicy')
          return [
            { kind: 'origin request', name: JSON.stringify(r.Properties.OriginRequestPolicyConfig.Name) },
          ];
        return [];
      }),
    );
  }

  let prodEu: { kind: string; name: string }[];
  let prodUs: { kind: string; name: string }[];

  beforeAll(() => {
    prodEu = policyNames(appIn('prod', 'eu-west-1'));
    prodUs = policyNames(appIn('prod', 'us-west-2'));
  }, 600_000); // two synths of every stack

  it('are 3 cache policies and 1 origin request policy per stage (what docs/deploy.md counts against the quota)', () => {
    // Assess
    expect(prodEu.filter((p) => p.kind === 'cache')).toHaveLength(3);
    expect(prodEu.filter((p) => p.kind === 'origin request')).toHaveLength(1);
    const guide = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');
    for (const words of [
      '3 cache policies and 1 origin request policy',
      '20 cache policies',
      '20 origin request policies',
    ]) {
      expect(guide.includes(words), `docs/deploy.md says "${words}"`).toBe(true);
    }
  });

  it('have names that name their region, so that one stage deploys in two regions of an account', () => {
    // Assess: CloudFront policy names are unique per account, whatever the region.
    for (const { name } of prodEu) expect(name).toContain('eu-west-1');
    for (const { name } of prodUs) expect(name).toContain('us-west-2');
    const eu = new Set(prodEu.map((p) => p.name));
    expect(prodUs.filter((p) => eu.has(p.name))).toEqual([]);
  });

  it('have names that name their stage, so that stages of one region do not collide', () => {
    // Assess: the stack name (ListingsLeads-<stage>-…) is the start of every name.
    for (const { name } of [...prodEu, ...prodUs]) expect(name).toMatch(/^"ListingsLeadsprod(Site|PhotoCdn)/);
  });

  it('have names CloudFront accepts: letters, digits, - and _, at most 128 characters', () => {
    // Assess
    for (const { name } of [...prodEu, ...prodUs]) {
      const plain = JSON.parse(name) as unknown;
      expect(typeof plain).toBe('string');
      expect(plain as string).toMatch(/^[\w-]{1,128}$/);
    }
  });
});

describe('catalogue snapshots in the versioned photo bucket', () => {
  it('keep the old version of a rewritten snapshot one day, not the bucket’s 30', () => {
    // Prepare: a snapshot is rewritten up to once a minute per Tenant; each rewrite makes the previous
    // object a noncurrent version.
    const template = Template.fromStack(service.data).toJSON();
    const bucketId = service.data.getLogicalId(service.data.photoBucket.node.defaultChild as CfnElement);

    // Act
    const rules = (template.Resources[bucketId].Properties.LifecycleConfiguration?.Rules ?? []) as Json[];
    const catalogue = rules.filter(
      (rule) => (rule.Prefix ?? rule.Filter?.Prefix) === CATALOGUE_PREFIX && rule.Status === 'Enabled',
    );

    // Assess
    expect(catalogue).toHaveLength(1);
    expect(catalogue[0]?.NoncurrentVersionExpiration).toEqual({ NoncurrentDays: 1 });
    // The rule for the whole bucket still applies to the rest (photos: 30 days).
    expect(rules.some((rule) => rule.NoncurrentVersionExpiration?.NoncurrentDays === 30)).toBe(true);
  });
});
