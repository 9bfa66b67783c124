import {
  BedrockClient,
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from '@aws-sdk/client-bedrock';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, ListDistributionsCommand } from '@aws-sdk/client-cloudfront';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { GetAccountCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll } from 'vitest';
import { defaultAiModelFor } from '../../lib/stacks/async-stack.ts';
import type { DeployPlan } from '../../scripts/preflight.ts';

/** What `cdk deploy` would deploy, as the preflight tests plan it: eu-west-1 with its default model. */
export const PLAN: DeployPlan = {
  region: 'eu-west-1',
  emailFrom: 'no-reply@agency.example',
  aiModel: defaultAiModelFor('eu-west-1'),
  reservedConcurrency: 0,
  workerConcurrency: 42,
  waf: true,
  aiConcurrency: 10,
};

/** The regions the EU cross-region profile of Nova Lite routes to. */
export const EU_PROFILE_REGIONS = [
  'eu-central-1',
  'eu-north-1',
  'eu-south-1',
  'eu-south-2',
  'eu-west-1',
  'eu-west-3',
] as const;

/** The quota Service Quotas names after Nova Lite, for its EU cross-region profile. */
export const NOVA_LITE_TPM = 'Cross-Region InvokeModel tokens per minute for Amazon Nova Lite';

/** Nova Lite as Bedrock describes it: its name is what Service Quotas names its quotas after. */
export const NOVA_LITE = {
  modelDetails: {
    modelId: 'amazon.nova-lite-v1:0',
    modelArn: 'arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-lite-v1:0',
    providerName: 'Amazon',
    modelName: 'Nova Lite',
  },
};

/** An SDK service exception as the clients throw it (matched by name). */
export function awsError(name: string): Error {
  return Object.assign(new Error(`${name} (test)`), { name });
}

/** A quota as Service Quotas lists it. */
export function quota(QuotaName: string, Value: number, QuotaCode = `L-${QuotaName.length}`) {
  return { ServiceCode: 'bedrock', QuotaName, QuotaCode, Value };
}

/** An inference profile, active, routing to `regions`. */
export function profileRoutingTo(regions: readonly string[]) {
  return {
    status: 'ACTIVE' as const,
    models: regions.map((r) => ({
      modelArn: `arn:aws:bedrock:${r}::foundation-model/amazon.nova-lite-v1:0`,
    })),
  };
}

/**
 * Every AWS client the preflight calls, mocked at the SDK's edge for the calling test file (nothing
 * leaves the machine) and put back after it: the unit files share their worker's modules
 * (isolate: false), so the next file gets the real clients. Call it at the top of the file.
 */
export function mockPreflightAws() {
  const clients = {
    ssm: mockClient(SSMClient),
    cloudFormation: mockClient(CloudFormationClient),
    cloudFront: mockClient(CloudFrontClient),
    ses: mockClient(SESv2Client),
    bedrock: mockClient(BedrockClient),
    lambda: mockClient(LambdaClient),
    quotas: mockClient(ServiceQuotasClient),
    sts: mockClient(STSClient),
  };
  afterAll(() => {
    for (const mock of Object.values(clients)) mock.restore();
  });
  const reset = () => {
    for (const mock of Object.values(clients)) mock.reset();
  };
  /**
   * An account ready for the first deploy of {@link PLAN}: every check passes, with the CDK
   * bootstrap stack in each region of `bootstrapped`. Each call answers only what the preflight
   * must ask (the bootstrap version parameter, the sender's identity, the EU profile and the model by
   * their ids, Bedrock's quotas), so a question about something else finds no answer and fails its check. A test then
   * changes what its case is about.
   */
  const ready = (bootstrapped: readonly string[]) => {
    reset();
    const { ssm, cloudFormation, cloudFront, ses, bedrock, lambda, quotas, sts } = clients;
    ssm.on(GetParameterCommand).callsFake(async (input: { Name: string }, getClient) => {
      const region = await getClient().config.region();
      if (input.Name === '/cdk-bootstrap/hnb659fds/version' && bootstrapped.includes(region)) {
        return { Parameter: { Value: '28' } };
      }
      throw awsError('ParameterNotFound');
    });
    cloudFormation.on(DescribeStacksCommand).rejects(awsError('ValidationError'));
    cloudFront.on(ListDistributionsCommand).resolves({ DistributionList: { Quantity: 1 } as never });
    ses
      .on(GetEmailIdentityCommand, { EmailIdentity: PLAN.emailFrom })
      .resolves({ VerifiedForSendingStatus: true });
    ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: true, SendingEnabled: true });
    bedrock
      .on(GetInferenceProfileCommand, { inferenceProfileIdentifier: 'eu.amazon.nova-lite-v1:0' })
      .resolves(profileRoutingTo(EU_PROFILE_REGIONS) as never);
    bedrock.on(GetFoundationModelCommand).resolves(NOVA_LITE);
    bedrock.on(GetFoundationModelAvailabilityCommand, { modelId: 'amazon.nova-lite-v1:0' }).resolves({
      modelId: 'amazon.nova-lite-v1:0',
      authorizationStatus: 'AUTHORIZED',
      entitlementAvailability: 'AVAILABLE',
      regionAvailability: 'AVAILABLE',
      agreementAvailability: { status: 'AVAILABLE' },
    });
    lambda.on(GetAccountSettingsCommand).resolves({
      AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 },
    });
    quotas
      .on(ListServiceQuotasCommand, { ServiceCode: 'bedrock' })
      .resolves({ Quotas: [quota(NOVA_LITE_TPM, 2_000_000)] });
    sts.on(GetCallerIdentityCommand).resolves({ Account: '123456789012' });
  };
  return { ...clients, reset, ready };
}
