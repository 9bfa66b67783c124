/**
 * `npm run preflight` against what `cdk deploy --all` needs beyond the deploy region: the site's web
 * ACL (`waf`, on by default) is a stack in us-east-1, which must be bootstrapped too; and the AI
 * worker's Bedrock calls need tokens-per-minute quotas that Service Quotas reports per account. Every
 * AWS call is answered at the SDK's edge (aws-sdk-client-mock): nothing leaves the machine.
 */
import { ListAWSDefaultServiceQuotasCommand, ListServiceQuotasCommand } from '@aws-sdk/client-service-quotas';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultAiModelFor } from '../../lib/stacks/async-stack.ts';
import { hasBlocker, runPreflight, runPreflightCli } from '../../scripts/preflight.ts';
import { awsError, mockPreflightAws, NOVA_LITE_TPM, PLAN, quota } from '../support/preflight-aws.ts';

const aws = mockPreflightAws();
const { quotas } = aws;
/** A ready account (every check passes), the CDK bootstrap stack in each region listed in `bootstrapped`. */
const readyAccount = aws.ready;

beforeEach(() => {
  readyAccount(['eu-west-1', 'us-east-1']);
});

describe('npm run preflight with the web ACL on (the default)', () => {
  it('fails, exit code 1, on an account whose us-east-1 is not bootstrapped, saying what to run', async () => {
    // Prepare: the deploy region is bootstrapped, us-east-1 is not.
    readyAccount(['eu-west-1']);
    const printed: string[] = [];

    // Act: the command itself, on the app as `cdk deploy --all` would build it.
    const code = await runPreflightCli(
      ['--region', 'eu-west-1', '--email-from', 'no-reply@agency.example'],
      (text) => printed.push(text),
    );

    // Assess
    const output = printed.join('');
    expect(code, output).toBe(1);
    expect(output).toMatch(/^PASS {2}CDK bootstrap: bootstrap version 28 in eu-west-1$/m);
    expect(output).toMatch(/^FAIL {2}CDK bootstrap us-east-1: not bootstrapped in us-east-1/m);
    expect(output).toContain('-> npx cdk bootstrap aws://ACCOUNT_ID/us-east-1');
    expect(output.match(/^FAIL/gm)).toHaveLength(1);
  }, 120_000); // a synth of every stack (the plan), slow on a busy machine

  it('reports a blocker when only the deploy region is bootstrapped', async () => {
    // Prepare
    readyAccount(['eu-west-1']);

    // Act
    const results = await runPreflight(PLAN);

    // Assess
    expect(results.find((r) => r.check === 'CDK bootstrap')).toMatchObject({ verdict: 'PASS' });
    expect(hasBlocker(results)).toBe(true);
  });

  it('passes with us-east-1 bootstrapped too', async () => {
    // Act
    const results = await runPreflight(PLAN);

    // Assess
    expect(results.find((r) => r.check === 'CDK bootstrap us-east-1')).toMatchObject({ verdict: 'PASS' });
    expect(hasBlocker(results)).toBe(false);
  });

  it('with -c waf=off, us-east-1 is not asked about', async () => {
    // Prepare
    readyAccount(['eu-west-1']);

    // Act
    const results = await runPreflight({ ...PLAN, waf: false });

    // Assess
    expect(results.map((r) => r.check)).not.toContain('CDK bootstrap us-east-1');
    expect(hasBlocker(results)).toBe(false);
  });

  it('deploying to us-east-1 itself checks it once', async () => {
    // Prepare
    readyAccount(['us-east-1']);

    // Act
    const results = await runPreflight({
      ...PLAN,
      region: 'us-east-1',
      aiModel: defaultAiModelFor('us-east-1'),
    });

    // Assess
    expect(results.filter((r) => r.check.startsWith('CDK bootstrap')).map((r) => r.check)).toEqual([
      'CDK bootstrap',
    ]);
  });
});

describe('the Bedrock quotas of the AI model (Service Quotas)', () => {
  const check = 'Bedrock quotas for Amazon Nova Lite';

  it('passes when the cross-region tokens per minute cover the worker at full concurrency', async () => {
    // Act
    const result = (await runPreflight(PLAN)).find((r) => r.check === check);

    // Assess
    expect(result).toMatchObject({ verdict: 'PASS' });
    expect(result?.detail).toContain('2,000,000');
  });

  it('fails on a quota of 0 and names it, for the increase request', async () => {
    // Prepare: a new account's reduced quota.
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [quota(NOVA_LITE_TPM, 0, 'L-ABC12345')] });

    // Act
    const result = (await runPreflight(PLAN)).find((r) => r.check === check);

    // Assess
    expect(result).toMatchObject({ verdict: 'FAIL' });
    expect(result?.detail).toContain(NOVA_LITE_TPM);
    expect(result?.action).toContain('L-ABC12345');
  });

  it('warns when the quota is below what the worker sends at once (the AI dead-letter queue fills)', async () => {
    // Prepare: 20,000 tokens a minute for 10 calls at once.
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [quota(NOVA_LITE_TPM, 20_000)] });

    // Act
    const result = (await runPreflight(PLAN)).find((r) => r.check === check);

    // Assess
    expect(result).toMatchObject({ verdict: 'WARN' });
    expect(result?.detail).toMatch(/10 calls at once/);
  });

  it('reads the on-demand quota for a foundation model id, the default value when none is applied', async () => {
    // Prepare
    quotas
      .on(ListServiceQuotasCommand)
      .resolves({ Quotas: [quota('Cross-Region InvokeModel tokens per minute for Amazon Nova Lite', 0)] })
      .on(ListAWSDefaultServiceQuotasCommand)
      .resolves({ Quotas: [quota('On-demand InvokeModel tokens per minute for Amazon Nova Lite', 200_000)] });

    // Act
    const results = await runPreflight({
      ...PLAN,
      aiModel: {
        modelId: 'amazon.nova-lite-v1:0',
        priceInputPer1kUsd: PLAN.aiModel.priceInputPer1kUsd,
        priceOutputPer1kUsd: PLAN.aiModel.priceOutputPer1kUsd,
      },
    });

    // Assess
    const result = results.find((r) => r.check === check);
    expect(result).toMatchObject({ verdict: 'PASS' });
    expect(result?.detail).toContain('On-demand InvokeModel tokens per minute');
  });

  it('warns, without blocking, when Service Quotas cannot be read', async () => {
    // Prepare
    quotas.on(ListServiceQuotasCommand).rejects(awsError('AccessDeniedException'));

    // Act
    const result = (await runPreflight(PLAN)).find((r) => r.check === check);

    // Assess
    expect(result).toMatchObject({ verdict: 'WARN' });
    expect(result?.action).toContain('servicequotas:ListServiceQuotas');
  });
});
