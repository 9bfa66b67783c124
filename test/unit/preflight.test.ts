import {
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from '@aws-sdk/client-bedrock';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListDistributionsCommand } from '@aws-sdk/client-cloudfront';
import { GetAccountSettingsCommand } from '@aws-sdk/client-lambda';
import { ListServiceQuotasCommand } from '@aws-sdk/client-service-quotas';
import { GetAccountCommand, GetEmailIdentityCommand } from '@aws-sdk/client-sesv2';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import type { WorkerDefinition } from '../../functions/workers.ts';
import { formatChecklist, hasBlocker, runPreflight, workerConcurrency } from '../../scripts/preflight.ts';
import {
  awsError,
  EU_PROFILE_REGIONS,
  mockPreflightAws,
  NOVA_LITE,
  NOVA_LITE_TPM,
  PLAN,
  profileRoutingTo,
} from '../support/preflight-aws.ts';

// Every AWS call of the preflight is answered here: nothing leaves the machine.
const aws = mockPreflightAws();
const { ssm, cloudFormation, cloudFront, ses, bedrock, lambda, quotas } = aws;

beforeEach(() => aws.reset());

describe('npm run preflight on an account ready for the first deploy', () => {
  it('passes every check and reports no blocker', async () => {
    // Prepare: the sender's address is no identity of its own; its domain is verified.
    aws.ready(['eu-west-1', 'us-east-1']);
    ses
      .on(GetEmailIdentityCommand, { EmailIdentity: 'no-reply@agency.example' })
      .rejects(awsError('NotFoundException'))
      .on(GetEmailIdentityCommand, { EmailIdentity: 'agency.example' })
      .resolves({ VerifiedForSendingStatus: true });

    // Act
    const results = await runPreflight(PLAN);

    // Assess
    expect(results.map((r) => [r.check, r.verdict])).toEqual([
      ['CDK bootstrap', 'PASS'],
      ['CDK bootstrap us-east-1', 'PASS'],
      ['CloudFront', 'PASS'],
      ['SES sender no-reply@agency.example', 'PASS'],
      ['SES account', 'PASS'],
      ['Bedrock eu.amazon.nova-lite-v1:0', 'PASS'],
      ['Bedrock access to amazon.nova-lite-v1:0', 'PASS'],
      ['Bedrock quotas for Amazon Nova Lite', 'PASS'],
      ['Lambda concurrency', 'PASS'],
    ]);
    expect(hasBlocker(results)).toBe(false);
    expect(results.find((r) => r.check.startsWith('SES sender'))?.detail).toContain(
      'agency.example verified',
    );
  });
});

describe('npm run preflight on a new account', () => {
  it('fails on each blocker and says what to do, warning on what does not block', async () => {
    // Prepare: not bootstrapped, no CloudFront yet, sender unverified, SES sandbox, a profile routing
    // to a region the grant leaves out, no model access, a tokens-per-minute quota of 0, and the
    // new-account concurrency of 10.
    ssm.on(GetParameterCommand).rejects(awsError('ParameterNotFound'));
    cloudFormation.on(DescribeStacksCommand).rejects(awsError('ValidationError'));
    cloudFront.on(ListDistributionsCommand).resolves({ DistributionList: { Quantity: 0 } as never });
    ses.on(GetEmailIdentityCommand).rejects(awsError('NotFoundException'));
    ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: false, SendingEnabled: true });
    bedrock
      .on(GetInferenceProfileCommand)
      .resolves(profileRoutingTo([...EU_PROFILE_REGIONS, 'eu-west-2']) as never);
    bedrock.on(GetFoundationModelAvailabilityCommand).resolves({
      modelId: 'amazon.nova-lite-v1:0',
      authorizationStatus: 'NOT_AUTHORIZED',
      entitlementAvailability: 'AVAILABLE',
      regionAvailability: 'AVAILABLE',
      agreementAvailability: { status: 'NOT_AVAILABLE' },
    });
    bedrock.on(GetFoundationModelCommand).resolves(NOVA_LITE);
    quotas.on(ListServiceQuotasCommand).resolves({
      Quotas: [{ QuotaName: NOVA_LITE_TPM, QuotaCode: 'L-NOVA1', Value: 0 }],
    });
    lambda.on(GetAccountSettingsCommand).resolves({
      AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 },
    });

    // Act
    const results = await runPreflight(PLAN);
    const byCheck = new Map(results.map((r) => [r.check, r]));
    const printed = formatChecklist(results);

    // Assess
    expect(results.map((r) => [r.check, r.verdict])).toEqual([
      ['CDK bootstrap', 'FAIL'],
      ['CDK bootstrap us-east-1', 'FAIL'],
      ['CloudFront', 'WARN'],
      ['SES sender no-reply@agency.example', 'FAIL'],
      ['SES account', 'WARN'],
      ['Bedrock eu.amazon.nova-lite-v1:0', 'FAIL'],
      ['Bedrock access to amazon.nova-lite-v1:0', 'FAIL'],
      ['Bedrock quotas for Amazon Nova Lite', 'FAIL'],
      ['Lambda concurrency', 'FAIL'],
    ]);
    expect(hasBlocker(results)).toBe(true);
    expect(byCheck.get('CDK bootstrap')?.action).toBe('npx cdk bootstrap aws://ACCOUNT_ID/eu-west-1');
    expect(byCheck.get('SES sender no-reply@agency.example')?.action).toContain(
      'aws sesv2 create-email-identity --email-identity agency.example --region eu-west-1',
    );
    expect(byCheck.get('SES account')?.detail).toContain('sandbox');
    expect(byCheck.get('Bedrock eu.amazon.nova-lite-v1:0')?.action).toContain(
      `-c aiModelRegions=${[...EU_PROFILE_REGIONS, 'eu-west-2'].join(',')}`,
    );
    expect(byCheck.get('Lambda concurrency')?.detail).toContain('the workers run up to 42 at once');
    expect(byCheck.get('Lambda concurrency')?.action).toContain('L-B99A9384');
    expect(printed).toMatch(
      /^FAIL {2}CDK bootstrap: not bootstrapped in eu-west-1\n {6}-> npx cdk bootstrap/,
    );
    for (const r of results.filter((r) => r.verdict !== 'PASS')) expect(r.action, r.check).toBeTruthy();
  });
});

describe('the workers maximum concurrency', () => {
  it('adds the queue mappings maxConcurrency, one per stream consumer and one per schedule', () => {
    // Prepare
    const row = (trigger: WorkerDefinition['trigger']) => ({ trigger }) as WorkerDefinition;
    const rows = [
      row({
        kind: 'stream',
        batchSize: 100,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAgeSeconds: 21_600,
      }),
      row({ kind: 'queue', queue: 'ai', batchSize: 1, maxConcurrency: 10, maxReceiveCount: 5 }),
      row({ kind: 'queue', queue: 'webhooks', batchSize: 10, maxConcurrency: 20, maxReceiveCount: 5 }),
      row({ kind: 'schedule', cron: { minute: '0', hour: '3' }, summary: 'daily', localEveryMs: 1 }),
    ];

    // Act
    const total = workerConcurrency(rows);

    // Assess
    expect(total).toBe(32);
  });
});
