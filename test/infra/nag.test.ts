import { App, Aspects, CfnResource, NestedStack, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceApp } from '../../lib/app.ts';
import { PHOTO_PREFIX_WILDCARD } from '../../lib/constructs/photo-store-access.ts';
import { SES_IDENTITY_WILDCARD } from '../../lib/constructs/service-function.ts';
import { buildTestApp } from './deploy-context.ts';

interface NagSuppression {
  id: string;
  reason: string;
  applies_to?: unknown[];
}

let service: ServiceApp;
let topLevelStacks: Stack[];
let allStacks: Stack[];

beforeAll(() => {
  // Prepare: the app as bin/app.ts builds it (templates only: the checks do not read function code).
  service = buildTestApp();
  Aspects.of(service.app).add(new AwsSolutionsChecks({ verbose: true }));
  Aspects.of(service.app).add(new ServerlessChecks({ verbose: true }));
  // Act: synthesis runs the checks.
  service.app.synth();
  allStacks = service.app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
  topLevelStacks = allStacks.filter((s) => !s.nested);
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

const PACKS = Match.stringLikeRegexp('(AwsSolutions|Serverless)-.*');

describe('cdk-nag AwsSolutions and Serverless', () => {
  it('reports no unsuppressed error or warning in any stack (nested stacks report through their parent)', () => {
    for (const stack of topLevelStacks) {
      // Prepare
      const annotations = Annotations.fromStack(stack);

      // Act
      const errors = annotations.findError('*', PACKS);
      const warnings = annotations.findWarning('*', PACKS);

      // Assess
      expect(errors.map((e) => `${e.id}: ${String(e.entry.data)}`)).toEqual([]);
      expect(warnings.map((w) => `${w.id}: ${String(w.entry.data)}`)).toEqual([]);
    }
    expect(topLevelStacks.map((s) => s.stackName).sort()).toEqual(
      [
        'ListingsLeads-test-Api',
        'ListingsLeads-test-Async',
        'ListingsLeads-test-Data',
        // The site distribution's web ACL (deploy parameter waf, on by default), in us-east-1.
        'ListingsLeads-test-EdgeFirewall',
        'ListingsLeads-test-PhotoCdn',
        'ListingsLeads-test-Site',
      ].sort(),
    );
    expect(allStacks.some((s) => s.nested)).toBe(true);
  }, 300_000); // reads the annotations of every stack; slow on a busy 2-core machine

  it('would see a finding inside a nested stack through the parent stack (the check above is not vacuous)', () => {
    // Prepare: a queue without SSL enforcement or DLQ, inside a nested stack.
    const app = new App({ builtinCloudFormationValidation: false });
    const parent = new Stack(app, 'Parent');
    new Queue(new NestedStack(parent, 'Nested'), 'Queue');
    Aspects.of(app).add(new AwsSolutionsChecks());
    Aspects.of(app).add(new ServerlessChecks());

    // Act
    const errors = Annotations.fromStack(parent).findError('*', PACKS);

    // Assess
    expect(errors.map((e) => e.id)).toContain('/Parent/Nested/Queue/Resource');
    // Both packs ran: AwsSolutions-SQS4 (no SSL) and Serverless-SQSRedrivePolicy (no DLQ).
    const messages = errors.map((e) => String(e.entry.data));
    expect(messages.some((m) => m.includes('AwsSolutions-SQS4'))).toBe(true);
    expect(messages.some((m) => m.includes('Serverless-SQSRedrivePolicy'))).toBe(true);
  });

  it('gives every suppression a specific reason, and wildcard suppressions name what they allow', () => {
    // Prepare
    const resources = service.app.node
      .findAll()
      .filter((c): c is CfnResource => CfnResource.isCfnResource(c));

    // Act
    const suppressions = resources.flatMap(
      (r) =>
        (r.getMetadata('cdk_nag') as { rules_to_suppress?: NagSuppression[] } | undefined)
          ?.rules_to_suppress ?? [],
    );

    // Assess
    expect(suppressions.length).toBeGreaterThan(0);
    for (const suppression of suppressions) {
      expect(suppression.reason.length, suppression.id).toBeGreaterThanOrEqual(80);
      // IAM5: actions IAM only grants on "*", a model in every region through one inference profile,
      // or the schedules of the webhook ladder's own group (lib/constructs/webhook-ladder.ts).
      if (suppression.id === 'AwsSolutions-IAM5') {
        for (const allowed of suppression.applies_to ?? []) {
          if (typeof allowed === 'object') {
            // Or one key prefix of the photo bucket (lib/constructs/photo-store-access.ts), or the
            // account's SES identities with the service's sender only (ServiceFunction.bindEmailSender).
            expect([SCHEDULE_GROUP_WILDCARD, PHOTO_PREFIX_WILDCARD, SES_IDENTITY_WILDCARD]).toContain(
              (allowed as { regex: string }).regex,
            );
            continue;
          }
          expect(String(allowed)).toMatch(
            /^Resource::(\*|arn:<AWS::Partition>:bedrock:\*::foundation-model\/[^*]+)$/,
          );
        }
        expect(suppression.applies_to?.length).toBeGreaterThan(0);
      }
      // Only the rules we have argued for may be suppressed; anything new must be fixed or argued here.
      expect([
        'AwsSolutions-APIG4',
        // The site distribution (lib/constructs/site-distribution.ts): geography, WAF, logging, TLS of the default domain.
        // The photo CDN (lib/constructs/photo-distribution.ts): geo restriction, WAF, access logs, TLS policy.
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
        'AwsSolutions-IAM5',
        'AwsSolutions-S1',
        'AwsSolutions-SMG4',
        'AwsSolutions-SQS3',
        'Serverless-LambdaDLQ',
        'Serverless-LambdaEventSourceMappingDestination',
        'Serverless-LambdaTracing',
        'Serverless-SNSRedrivePolicy',
        'Serverless-SQSRedrivePolicy',
      ]).toContain(suppression.id);
    }
  });
});

const SCHEDULE_GROUP_WILDCARD = '/^Resource::arn:<AWS::Partition>:scheduler:.+:schedule\\/[^/]+\\/\\*$/g';

describe('stack sizes', () => {
  it('keeps every stack, nested ones included, well under the 500-resource limit', () => {
    for (const stack of allStacks) {
      // Act
      const count = Object.keys(Template.fromStack(stack).toJSON().Resources ?? {}).length;

      // Assess
      expect(count, stack.node.path).toBeLessThan(400);
    }
  });
});
