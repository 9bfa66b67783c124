import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { aiModelFromContext, buildApp, type ServiceApp } from '../../lib/app.ts';
import { repoRoot } from '../../lib/constructs/service-function.ts';
import { DEFAULT_AI_MODEL, DEFAULT_AI_MODEL_PROFILES } from '../../lib/stacks/async-stack.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON, navigated freely here.
type Json = Record<string, any>;

function build(context: Record<string, unknown>) {
  return () => buildApp({ stage: 'test', bundle: false, context });
}

/** The AI worker's bedrock:InvokeModel statements, resources as JSON strings. */
function bedrockStatements(service: ServiceApp): { resources: string[]; condition: unknown }[] {
  const template = Template.fromStack(service.async);
  const roleId = service.async.getLogicalId(service.async.aiWorker.role.node.defaultChild as CfnRole);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
    .filter((s) => [s.Action].flat().includes('bedrock:InvokeModel'))
    .map((s) => ({ resources: [s.Resource].flat().map((r) => JSON.stringify(r)), condition: s.Condition }));
}

describe('required deploy parameters', () => {
  it('refuses a synth without the sender and the alarm email, naming both -c flags', () => {
    // Act + Assess
    expect(build({})).toThrow(
      /Missing deploy parameters: emailFrom .*; alarmEmail .*-c emailFrom=\S+ -c alarmEmail=\S+/,
    );
  });

  it('names only what is missing', () => {
    // Act + Assess
    expect(build({ emailFrom: DEPLOY_CONTEXT.emailFrom })).toThrow(
      /^Missing deploy parameter: alarmEmail \(.*\)\. Pass it as CDK context: `npx cdk synth -c alarmEmail=\S+`/,
    );
    expect(build({ alarmEmail: DEPLOY_CONTEXT.alarmEmail })).toThrow(/^Missing deploy parameter: emailFrom /);
    expect(build({ ...DEPLOY_CONTEXT, emailFrom: '' })).toThrow(/Missing deploy parameter: emailFrom/);
  });

  it('refuses an alarm email that is not a plain address', () => {
    // Act + Assess
    expect(build({ ...DEPLOY_CONTEXT, alarmEmail: 'ops' })).toThrow(
      /Context alarmEmail must be a plain email address/,
    );
  });

  it('has no value in cdk.json, so that a deploy without them fails instead of using an example', () => {
    // Act
    const context = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')).context as Json;

    // Assess
    expect(context.emailFrom).toBeUndefined();
    expect(context.alarmEmail).toBeUndefined();
  });
});

describe('aiModelId as a cross-region inference profile', () => {
  const profile = 'eu.amazon.nova-lite-v1:0';

  it('grants the profile in the stack region, and the model in every region only through that profile', () => {
    // Prepare
    const service = buildApp({
      stage: 'test',
      bundle: false,
      context: { ...DEPLOY_CONTEXT, aiModelId: profile },
    });

    // Act
    const statements = bedrockStatements(service);
    const [onProfile, onModel] = statements;

    // Assess
    expect(statements).toHaveLength(2);
    expect(onProfile?.resources).toHaveLength(1);
    expect(onProfile?.resources[0]).toMatch(
      /":bedrock:",\{"Ref":"AWS::Region"\},":",\{"Ref":"AWS::AccountId"\},":inference-profile\/eu\.amazon\.nova-lite-v1:0"/,
    );
    expect(onProfile?.condition).toBeUndefined();
    expect(onModel?.resources).toEqual([
      expect.stringContaining(':bedrock:*::foundation-model/amazon.nova-lite-v1:0'),
    ]);
    expect(JSON.stringify(onModel?.condition)).toContain('"StringEquals":{"bedrock:InferenceProfileArn":');
    expect(JSON.stringify(onModel?.condition)).toContain('inference-profile/eu.amazon.nova-lite-v1:0');
    // The default model through a geographic profile keeps the default prices.
    expect(service.async.aiModel).toMatchObject({
      modelId: profile,
      priceInputPer1kUsd: DEFAULT_AI_MODEL.priceInputPer1kUsd,
      priceOutputPer1kUsd: DEFAULT_AI_MODEL.priceOutputPer1kUsd,
    });
  }, 300_000); // a synth of every stack; slow on a busy 2-core machine

  it('grants the model in exactly the regions of aiModelRegions when they are given', () => {
    // Prepare
    const service = buildApp({
      stage: 'test',
      bundle: false,
      context: { ...DEPLOY_CONTEXT, aiModelId: profile, aiModelRegions: 'eu-west-1, eu-central-1' },
    });

    // Act
    const [, onModel] = bedrockStatements(service);

    // Assess
    expect(onModel?.resources.sort()).toEqual([
      expect.stringContaining(':bedrock:eu-central-1::foundation-model/amazon.nova-lite-v1:0'),
      expect.stringContaining(':bedrock:eu-west-1::foundation-model/amazon.nova-lite-v1:0'),
    ]);
    expect(JSON.stringify(onModel?.condition)).toContain('bedrock:InferenceProfileArn');
  }, 300_000); // a synth of every stack; slow on a busy 2-core machine

  it('refuses aiModelRegions for a foundation model id, a bad region, and a profile of another model without prices', () => {
    // Act + Assess
    expect(build({ ...DEPLOY_CONTEXT, aiModelRegions: 'eu-west-1' })).toThrow(/inference profile id only/);
    expect(build({ ...DEPLOY_CONTEXT, aiModelId: profile, aiModelRegions: 'europe' })).toThrow(
      /not an AWS region/,
    );
    expect(build({ ...DEPLOY_CONTEXT, aiModelId: 'us.anthropic.claude-3-haiku-20240307-v1:0' })).toThrow(
      /aiPriceInputPer1kUsd/,
    );
    expect(
      build({ ...DEPLOY_CONTEXT, aiModelId: 'arn:aws:bedrock:eu-west-1::foundation-model/x.y' }),
    ).toThrow(/Context aiModelId/);
  });
});

describe('the default AI model, chosen by the deploy region', () => {
  /** The sender and the alarm address only: no model named. */
  const required = { emailFrom: DEPLOY_CONTEXT.emailFrom, alarmEmail: DEPLOY_CONTEXT.alarmEmail };
  const modelIn = (region: string) => aiModelFromContext(new App({ context: required }), region);

  it('is Nova Lite through the geographic inference profile of -c region, granted in each region it routes to', () => {
    // Prepare
    const service = buildApp({ stage: 'test', bundle: false, context: { ...required, region: 'eu-west-1' } });

    // Act
    const statements = bedrockStatements(service);
    const env = Object.values(Template.fromStack(service.async).findResources('AWS::Lambda::Function'))
      .map((fn) => fn.Properties.Environment?.Variables?.AI_MODEL_ID)
      .filter((id) => id !== undefined);

    // Assess
    expect(service.async.region).toBe('eu-west-1');
    expect(service.async.aiModel).toMatchObject({
      modelId: 'eu.amazon.nova-lite-v1:0',
      priceInputPer1kUsd: DEFAULT_AI_MODEL.priceInputPer1kUsd,
      priceOutputPer1kUsd: DEFAULT_AI_MODEL.priceOutputPer1kUsd,
    });
    expect(env).toEqual(['eu.amazon.nova-lite-v1:0']);
    const [onProfile, onModel] = statements;
    expect(statements).toHaveLength(2);
    expect(onProfile?.resources).toEqual([
      expect.stringContaining(
        ':bedrock:eu-west-1:",{"Ref":"AWS::AccountId"},":inference-profile/eu.amazon.nova-lite-v1:0"',
      ),
    ]);
    expect(onModel?.resources.sort()).toEqual(
      [...(DEFAULT_AI_MODEL_PROFILES.eu ?? [])]
        .sort()
        .map((region) =>
          expect.stringContaining(`:bedrock:${region}::foundation-model/amazon.nova-lite-v1:0`),
        ),
    );
    expect(JSON.stringify(onModel?.condition)).toContain('inference-profile/eu.amazon.nova-lite-v1:0');
  }, 300_000); // a synth of every stack; slow on a busy 2-core machine

  it("picks the profile of the region's geography: us., eu. or apac.", () => {
    // Act + Assess
    expect(modelIn('us-east-1')).toMatchObject({
      modelId: 'us.amazon.nova-lite-v1:0',
      destinationRegions: ['us-east-1', 'us-east-2', 'us-west-2'],
    });
    expect(modelIn('us-west-2').modelId).toBe('us.amazon.nova-lite-v1:0');
    expect(modelIn('eu-central-1').modelId).toBe('eu.amazon.nova-lite-v1:0');
    expect(modelIn('ap-southeast-2').modelId).toBe('apac.amazon.nova-lite-v1:0');
    expect(modelIn('ap-northeast-1').destinationRegions).toContain('ap-south-1');
  });

  it('refuses a synth that knows no region and names no model, saying what to pass', () => {
    // Act + Assess
    expect(build(required)).toThrow(/-c region=eu-west-1.*-c aiModelId=eu\.amazon\.nova-lite-v1:0/);
  });

  it('refuses a region no Nova Lite profile serves, a profile the region cannot call, and a bad region name', () => {
    // Act + Assess
    expect(() => modelIn('sa-east-1')).toThrow(
      /no inference profile that sa-east-1 may call.*-c aiModelId=.*-c aiPriceInputPer1kUsd=/,
    );
    expect(() =>
      aiModelFromContext(new App({ context: { aiModelId: 'us.amazon.nova-lite-v1:0' } }), 'eu-west-1'),
    ).toThrow(/us\. inference profile, which eu-west-1 cannot call/);
    expect(build({ ...required, region: 'Ireland' })).toThrow(/Context region must be an AWS region name/);
  });
});
