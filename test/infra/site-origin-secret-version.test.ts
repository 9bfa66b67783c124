import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { repoRoot } from '../../lib/constructs/service-function.ts';
import { DEPLOY_CONTEXT, sharedTestApp } from './deploy-context.ts';

/**
 * The deploy step of the origin secret's rotation (docs/operations.md, "Rotate the secrets"):
 * CloudFormation resolves a dynamic reference again only when the resource that holds it changes,
 * so a deploy after putting a new value must change the distribution. The deploy parameter
 * `originSecretVersion` names the version the header takes; a new version id is a new template.
 */

const VERSION_ID = 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';

let unversioned: ServiceApp;
let versioned: ServiceApp;

/** The app as `cdk synth -c originSecretVersion=…` builds it. */
function appWith(context: Record<string, unknown>): ServiceApp {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const app = new App({
    context: { ...cdkJson.context, ...DEPLOY_CONTEXT, ...context },
    builtinCloudFormationValidation: false,
  });
  return buildApp({ app, stage: 'test', bundle: false });
}

/** The X-Origin-Verify header of the site origin, as the template holds it (JSON). */
function originVerifyHeader(service: ServiceApp): string {
  const [distribution] = Object.values(
    Template.fromStack(service.site).findResources('AWS::CloudFront::Distribution'),
  ) as { Properties: { DistributionConfig: { Origins: { OriginCustomHeaders?: unknown[] }[] } } }[];
  const headers = (distribution?.Properties.DistributionConfig.Origins ?? []).flatMap(
    (o) => (o.OriginCustomHeaders ?? []) as { HeaderName: string; HeaderValue: unknown }[],
  );
  const header = headers.find((h) => h.HeaderName === 'X-Origin-Verify');
  expect(header, 'the site origin sends X-Origin-Verify').toBeDefined();
  return JSON.stringify(header?.HeaderValue);
}

beforeAll(() => {
  unversioned = sharedTestApp();
  versioned = appWith({ originSecretVersion: VERSION_ID });
}, 300_000); // two synths of every stack; slow on a busy 2-core machine

describe('the origin secret in the site distribution', () => {
  it('without originSecretVersion: the current value (AWSCURRENT), no version in the reference', () => {
    const header = originVerifyHeader(unversioned);
    expect(header).toContain('{{resolve:secretsmanager:');
    expect(header).toMatch(/:SecretString:::}}/);
  });

  it('with originSecretVersion: that version, so a new version id changes the distribution', () => {
    const header = originVerifyHeader(versioned);
    expect(header).toContain('{{resolve:secretsmanager:');
    expect(header).toContain(`:SecretString:::${VERSION_ID}}}`);
    expect(header).not.toBe(originVerifyHeader(unversioned));
  });

  it('refuses a version id that is not one', () => {
    expect(() => appWith({ originSecretVersion: 'AWSCURRENT; rm -rf' })).toThrow(/originSecretVersion/);
  });
});
