/**
 * Before the first deploy: read-only AWS calls that tell an operator what would stop the deploy, or
 * the service once deployed, in one account and region. One line per check, PASS / WARN / FAIL, each
 * WARN and FAIL with what to do; exit code 1 when any check FAILs.
 *
 *   npm run preflight -- --region eu-west-1 --email-from no-reply@agency.example
 *     [--model eu.amazon.nova-lite-v1:0] [--model-regions eu-west-1,eu-central-1]
 *
 * Checks: the CDK bootstrap stack, in the deploy region and, when the site's web ACL is on (`waf`,
 * the default), in us-east-1 where its stack goes; CloudFront on the account; the SES sender's
 * identity and whether the account is in the SES sandbox; Bedrock access to the model (or inference
 * profile) the stacks would call from that region, and the profile's destinations against the
 * regions granted; the model's Bedrock quotas (Service Quotas) against what the AI worker sends at
 * once; the Lambda concurrency quota against what the stacks reserve and the workers' maximum
 * concurrency. The model, the web ACL and the reserved concurrency come from the app itself
 * (lib/app.ts, synthesized without bundling), the workers' concurrency from functions/workers.ts.
 * Credentials: the usual AWS chain.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  BedrockClient,
  GetFoundationModelAvailabilityCommand,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from '@aws-sdk/client-bedrock';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, ListDistributionsCommand } from '@aws-sdk/client-cloudfront';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  ListAWSDefaultServiceQuotasCommand,
  ListServiceQuotasCommand,
  type ServiceQuota,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { GetAccountCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { WorkerDefinition } from '../functions/workers.ts';
import { workers } from '../functions/workers.ts';
import { buildApp } from '../lib/app.ts';
import { emailDomain, parseBedrockModelId } from '../lib/constructs/service-function.ts';
import type { AiModelSettings } from '../lib/stacks/async-stack.ts';
import { CLOUDFRONT_WAF_REGION } from '../lib/stacks/edge-firewall-stack.ts';
import { usageText } from './command-line.ts';

export type Verdict = 'PASS' | 'WARN' | 'FAIL';

/** One line of the checklist; `action` says what to do for a WARN or a FAIL. */
export interface CheckResult {
  readonly verdict: Verdict;
  readonly check: string;
  readonly detail: string;
  readonly action?: string;
}

/** What the stacks would deploy, as far as the checks need it. */
export interface DeployPlan {
  readonly region: string;
  /** The SES sender (`emailFrom`). */
  readonly emailFrom: string;
  /** The AI worker's model, as lib/app.ts resolves it for the region. */
  readonly aiModel: AiModelSettings;
  /** Sum of ReservedConcurrentExecutions over every function of the stacks. */
  readonly reservedConcurrency: number;
  /** The workers' most concurrent executions: queue mappings' maxConcurrency, one per stream shard, one per schedule. */
  readonly workerConcurrency: number;
  /** Whether the stacks put a web ACL in front of the site (deploy parameter `waf`, on by default): a stack in us-east-1. */
  readonly waf: boolean;
  /** The AI worker's most concurrent executions (its queue mapping's maxConcurrency): Bedrock calls at once. */
  readonly aiConcurrency: number;
}

/** Lambda keeps this much of the account's concurrency unreserved (AWS Lambda quotas). */
export const LAMBDA_MIN_UNRESERVED = 100;
/** The Service Quotas code of Lambda's "Concurrent executions". */
const LAMBDA_CONCURRENCY_QUOTA = 'L-B99A9384';
/** The SSM parameter the CDK bootstrap stack (default qualifier) writes its version to. */
const BOOTSTRAP_VERSION_PARAMETER = '/cdk-bootstrap/hnb659fds/version';
/** The lowest bootstrap version the CLI's templates accept (their BootstrapVersion rule). */
const MIN_BOOTSTRAP_VERSION = 6;

/**
 * What one AI call counts against the model's tokens-per-minute quota at most: Bedrock reserves the
 * prompt and the call's `maxTokens` when the call starts; an enrichment asks for up to 4,000 tokens
 * (functions/kernel/ports/bedrock-ai.ts), with a prompt of about 1,000.
 */
export const AI_TOKENS_PER_CALL = 5_000;

/** The AI worker's maximum concurrency: its queue mapping's maxConcurrency. */
export function aiConcurrency(rows: readonly WorkerDefinition[] = workers): number {
  return rows.reduce(
    (most, row) =>
      row.trigger.kind === 'queue' && row.trigger.queue === 'ai'
        ? Math.max(most, row.trigger.maxConcurrency)
        : most,
    0,
  );
}

/**
 * The workers' maximum concurrency from the worker table: a queue worker runs at most its mapping's
 * `maxConcurrency`, the stream consumer one invocation per shard (counted as one: a new table has one
 * shard per partition, few at first), a scheduled job one.
 */
export function workerConcurrency(rows: readonly WorkerDefinition[] = workers): number {
  return rows.reduce((sum, row) => sum + (row.trigger.kind === 'queue' ? row.trigger.maxConcurrency : 1), 0);
}

/** Builds the plan from the app itself (no bundling), as `cdk synth` would resolve the parameters. */
export function planFromApp(options: {
  region: string;
  emailFrom: string;
  context?: Record<string, unknown>;
}): DeployPlan {
  const service = buildApp({
    bundle: false,
    env: { region: options.region },
    // The alarm address changes no check; the app requires one.
    context: { ...options.context, emailFrom: options.emailFrom, alarmEmail: 'preflight@example.com' },
  });
  const reservedConcurrency = service.app.node
    .findAll()
    .filter((c): c is Stack => Stack.isStack(c))
    .flatMap((stack) => Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')))
    .reduce((sum, fn) => sum + Number(fn.Properties?.ReservedConcurrentExecutions ?? 0), 0);
  return {
    region: options.region,
    emailFrom: options.emailFrom,
    aiModel: service.async.aiModel,
    reservedConcurrency,
    workerConcurrency: workerConcurrency(),
    waf: service.edgeFirewall !== undefined,
    aiConcurrency: aiConcurrency(),
  };
}

function errorName(error: unknown): string {
  return (error as { name?: string }).name ?? 'Error';
}

/** A read the credentials could not make: the check cannot tell, which blocks as much as a failure. */
function callFailed(check: string, call: string, error: unknown, permission: string): CheckResult {
  return {
    verdict: 'FAIL',
    check,
    detail: `${call} failed (${errorName(error)})`,
    action: `check that the credentials may call ${permission}`,
  };
}

/**
 * The CDK bootstrap of `region`. `why` says what needs it there when it is not the deploy region
 * (the web ACL's stack in us-east-1): a deploy into an unbootstrapped region fails on that stack.
 */
async function checkBootstrap(region: string, check: string, why?: string): Promise<CheckResult> {
  const action = `npx cdk bootstrap aws://ACCOUNT_ID/${region}${why ? ' (or deploy with -c waf=off)' : ''}`;
  const where = why ? `${region}, ${why}` : region;
  try {
    const answer = await new SSMClient({ region }).send(
      new GetParameterCommand({ Name: BOOTSTRAP_VERSION_PARAMETER }),
    );
    const version = Number(answer.Parameter?.Value);
    if (version >= MIN_BOOTSTRAP_VERSION) {
      return { verdict: 'PASS', check, detail: `bootstrap version ${version} in ${region}` };
    }
    return {
      verdict: 'FAIL',
      check,
      detail: `bootstrap version ${answer.Parameter?.Value} is older than ${MIN_BOOTSTRAP_VERSION}`,
      action,
    };
  } catch (error) {
    if (errorName(error) === 'ParameterNotFound') {
      return { verdict: 'FAIL', check, detail: `not bootstrapped in ${where}`, action };
    }
  }
  // The parameter could not be read (permissions): the stack itself says whether it is there.
  try {
    const answer = await new CloudFormationClient({ region }).send(
      new DescribeStacksCommand({ StackName: 'CDKToolkit' }),
    );
    const status = answer.Stacks?.[0]?.StackStatus ?? 'unknown';
    return status.endsWith('_COMPLETE') && !status.startsWith('DELETE')
      ? { verdict: 'PASS', check, detail: `CDKToolkit stack ${status} in ${region}` }
      : { verdict: 'FAIL', check, detail: `CDKToolkit stack ${status} in ${where}`, action };
  } catch (error) {
    return {
      verdict: 'FAIL',
      check,
      detail: `no CDKToolkit stack in ${where} (${errorName(error)})`,
      action,
    };
  }
}

/** The bootstrap checks: the deploy region, and us-east-1 too when the web ACL's stack goes there. */
async function checkBootstraps(plan: DeployPlan): Promise<CheckResult[]> {
  const results = [await checkBootstrap(plan.region, 'CDK bootstrap')];
  if (plan.waf && plan.region !== CLOUDFRONT_WAF_REGION) {
    results.push(
      await checkBootstrap(
        CLOUDFRONT_WAF_REGION,
        `CDK bootstrap ${CLOUDFRONT_WAF_REGION}`,
        'where the EdgeFirewall stack (the site web ACL, waf on) deploys',
      ),
    );
  }
  return results;
}

/**
 * No read-only call says whether CloudFront will accept a new distribution: AWS refuses some new
 * accounts ("Your account must be verified") at creation. An account that already has a
 * distribution has passed that; one without any is warned.
 */
async function checkCloudFront(): Promise<CheckResult> {
  const check = 'CloudFront';
  try {
    const answer = await new CloudFrontClient({ region: 'us-east-1' }).send(
      new ListDistributionsCommand({ MaxItems: 1 }),
    );
    if ((answer.DistributionList?.Quantity ?? 0) > 0) {
      return { verdict: 'PASS', check, detail: 'the account already runs a distribution' };
    }
    return {
      verdict: 'WARN',
      check,
      detail: 'no distribution yet: a new account may be refused CloudFront until AWS verifies it',
      action:
        'if the PhotoCdn stack fails with "Your account must be verified", open an AWS Support case ' +
        '(Account and billing); the Data stack stays deployed and `cdk deploy --all` resumes from PhotoCdn',
    };
  } catch (error) {
    return callFailed(check, 'ListDistributions', error, 'cloudfront:ListDistributions');
  }
}

async function checkSesSender(plan: DeployPlan): Promise<CheckResult> {
  const check = `SES sender ${plan.emailFrom}`;
  const ses = new SESv2Client({ region: plan.region });
  const domain = emailDomain(plan.emailFrom);
  for (const identity of [plan.emailFrom, domain]) {
    try {
      const answer = await ses.send(new GetEmailIdentityCommand({ EmailIdentity: identity }));
      if (answer.VerifiedForSendingStatus) {
        return { verdict: 'PASS', check, detail: `identity ${identity} verified in ${plan.region}` };
      }
    } catch (error) {
      if (errorName(error) !== 'NotFoundException') {
        return callFailed(check, 'GetEmailIdentity', error, 'ses:GetEmailIdentity');
      }
    }
  }
  return {
    verdict: 'FAIL',
    check,
    detail: `neither ${plan.emailFrom} nor ${domain} is a verified identity in ${plan.region}`,
    action:
      `aws sesv2 create-email-identity --email-identity ${domain} --region ${plan.region}, then publish ` +
      'the three DKIM CNAME records it returns (or verify the address alone)',
  };
}

async function checkSesAccount(plan: DeployPlan): Promise<CheckResult> {
  const check = 'SES account';
  try {
    const answer = await new SESv2Client({ region: plan.region }).send(new GetAccountCommand({}));
    if (answer.SendingEnabled === false) {
      return {
        verdict: 'FAIL',
        check,
        detail: `sending is paused for the account in ${plan.region}`,
        action: 'see the SES console (Account dashboard) for why, and resume sending',
      };
    }
    if (!answer.ProductionAccessEnabled) {
      return {
        verdict: 'WARN',
        check,
        detail: `in the SES sandbox in ${plan.region}: mail reaches verified addresses only (200 a day)`,
        action:
          'verify each recipient for a trial, or request production access: SES console > Account ' +
          'dashboard, or aws sesv2 put-account-details --production-access-enabled …',
      };
    }
    return { verdict: 'PASS', check, detail: `production access in ${plan.region}` };
  } catch (error) {
    return callFailed(check, 'GetAccount', error, 'ses:GetAccount');
  }
}

/** The region of a foundation-model ARN (`arn:aws:bedrock:eu-west-3::foundation-model/…`). */
function regionOfArn(arn: string): string {
  return arn.split(':')[3] ?? '';
}

async function checkBedrock(plan: DeployPlan): Promise<CheckResult[]> {
  const { modelId, destinationRegions } = plan.aiModel;
  const target = parseBedrockModelId(modelId);
  const bedrock = new BedrockClient({ region: plan.region });
  const results: CheckResult[] = [];
  const check = `Bedrock ${modelId}`;
  try {
    if (target.isInferenceProfile) {
      const profile = await bedrock.send(
        new GetInferenceProfileCommand({ inferenceProfileIdentifier: modelId }),
      );
      const destinations = (profile.models ?? []).map((m) => regionOfArn(m.modelArn ?? ''));
      const ungranted = destinationRegions
        ? destinations.filter((region) => !destinationRegions.includes(region))
        : [];
      if (profile.status !== 'ACTIVE') {
        results.push({
          verdict: 'FAIL',
          check,
          detail: `the inference profile is ${profile.status} in ${plan.region}`,
          action: 'pick another model or profile with -c aiModelId',
        });
      } else if (ungranted.length > 0) {
        results.push({
          verdict: 'FAIL',
          check,
          detail: `the profile routes to ${ungranted.join(', ')}, where the worker is not granted the model`,
          action: `pass -c aiModelRegions=${destinations.join(',')}`,
        });
      } else {
        results.push({
          verdict: 'PASS',
          check,
          detail: `inference profile active in ${plan.region}, routing to ${destinations.join(', ')}`,
        });
      }
    } else {
      const model = await bedrock.send(new GetFoundationModelCommand({ modelIdentifier: modelId }));
      const onDemand = model.modelDetails?.inferenceTypesSupported?.includes('ON_DEMAND') ?? false;
      results.push(
        onDemand
          ? { verdict: 'PASS', check, detail: `served on demand in ${plan.region}` }
          : {
              verdict: 'FAIL',
              check,
              detail: `not served on demand in ${plan.region} (only through an inference profile)`,
              action: "leave aiModelId out (the default picks the region's profile) or pass a profile id",
            },
      );
    }
  } catch (error) {
    results.push({
      verdict: 'FAIL',
      check,
      detail: `${target.isInferenceProfile ? 'inference profile' : 'model'} not found in ${plan.region} (${errorName(error)})`,
      action: 'pick a model or profile that the region offers with -c aiModelId',
    });
  }
  const access = `Bedrock access to ${target.foundationModelId}`;
  try {
    const availability = await bedrock.send(
      new GetFoundationModelAvailabilityCommand({ modelId: target.foundationModelId }),
    );
    const ready =
      availability.authorizationStatus === 'AUTHORIZED' &&
      availability.entitlementAvailability === 'AVAILABLE' &&
      availability.agreementAvailability?.status !== 'NOT_AVAILABLE' &&
      availability.agreementAvailability?.status !== 'ERROR';
    results.push(
      ready
        ? { verdict: 'PASS', check: access, detail: `the account may invoke it from ${plan.region}` }
        : {
            verdict: 'FAIL',
            check: access,
            detail:
              `authorization ${availability.authorizationStatus}, entitlement ` +
              `${availability.entitlementAvailability}, agreement ${availability.agreementAvailability?.status}`,
            action: 'enable the model in the Bedrock console (Model access) of this region',
          },
    );
  } catch (error) {
    results.push({
      verdict: 'WARN',
      check: access,
      detail: `could not read the model's availability (${errorName(error)})`,
      action: 'check Model access in the Bedrock console of this region',
    });
  }
  return results;
}

/** Every quota of Bedrock in the region: the account's applied values, else AWS's defaults. */
async function bedrockQuotas(region: string, applied: boolean): Promise<ServiceQuota[]> {
  const client = new ServiceQuotasClient({ region });
  const found: ServiceQuota[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(
      applied
        ? new ListServiceQuotasCommand({ ServiceCode: 'bedrock', MaxResults: 100, NextToken })
        : new ListAWSDefaultServiceQuotasCommand({ ServiceCode: 'bedrock', MaxResults: 100, NextToken }),
    );
    found.push(...(page.Quotas ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  return found;
}

/**
 * The per-minute quotas that throttle the AI worker's calls to the model: Bedrock names them per
 * model (`Cross-Region InvokeModel tokens per minute for Amazon Nova Lite`), for calls through a
 * cross-region profile (`Global cross-Region …` for a `global.` profile) or on demand in the region.
 */
function modelQuotas(quotas: readonly ServiceQuota[], modelName: string, modelId: string): ServiceQuota[] {
  const target = parseBedrockModelId(modelId);
  const kind = !target.isInferenceProfile
    ? /^on-demand /
    : modelId.startsWith('global.')
      ? /^global cross-region /
      : /^cross-region /;
  const suffix = ` for ${modelName.toLowerCase()}`;
  return quotas.filter((q) => {
    const name = (q.QuotaName ?? '').toLowerCase();
    return kind.test(name) && name.endsWith(suffix) && / (tokens|requests) per minute /.test(name);
  });
}

async function checkBedrockQuotas(plan: DeployPlan): Promise<CheckResult> {
  const { modelId } = plan.aiModel;
  const target = parseBedrockModelId(modelId);
  let modelName: string;
  try {
    const model = await new BedrockClient({ region: plan.region }).send(
      new GetFoundationModelCommand({ modelIdentifier: target.foundationModelId }),
    );
    modelName = [model.modelDetails?.providerName, model.modelDetails?.modelName].filter(Boolean).join(' ');
    if (!modelName) throw new Error('the model has no name');
  } catch (error) {
    return {
      verdict: 'WARN',
      check: `Bedrock quotas for ${modelId}`,
      detail: `could not read the model's name to find its quotas (${errorName(error)})`,
      action: `check the model's tokens-per-minute quota in Service Quotas (Amazon Bedrock) in ${plan.region}`,
    };
  }
  const check = `Bedrock quotas for ${modelName}`;
  let found: ServiceQuota[];
  try {
    found = modelQuotas(await bedrockQuotas(plan.region, true), modelName, modelId);
    if (found.length === 0) found = modelQuotas(await bedrockQuotas(plan.region, false), modelName, modelId);
  } catch (error) {
    return {
      verdict: 'WARN',
      check,
      detail: `could not read Service Quotas (${errorName(error)})`,
      action: `check that the credentials may call servicequotas:ListServiceQuotas, or read the model's quotas in the Service Quotas console (${plan.region})`,
    };
  }
  if (found.length === 0) {
    return {
      verdict: 'WARN',
      check,
      detail: `Service Quotas lists no per-minute quota for ${modelName} ${target.isInferenceProfile ? 'through a cross-region profile' : 'on demand'} in ${plan.region}`,
      action: `check the model's tokens-per-minute quota in the Service Quotas console (Amazon Bedrock) in ${plan.region}`,
    };
  }
  const increase = (q: ServiceQuota) =>
    `request an increase in Service Quotas: Amazon Bedrock, ${q.QuotaName} (${q.QuotaCode}), in ${plan.region}`;
  const listed = found.map((q) => `${q.QuotaName}: ${(q.Value ?? 0).toLocaleString('en-US')}`).join('; ');
  const zero = found.find((q) => (q.Value ?? 0) <= 0);
  if (zero) {
    return {
      verdict: 'FAIL',
      check,
      detail: `${zero.QuotaName} is 0 in ${plan.region}: every AI call would be throttled`,
      action: increase(zero),
    };
  }
  const tokensNeeded = plan.aiConcurrency * AI_TOKENS_PER_CALL;
  const short = found.find((q) => {
    const name = (q.QuotaName ?? '').toLowerCase();
    const needed = name.includes('tokens per minute') ? tokensNeeded : plan.aiConcurrency;
    return (q.Value ?? 0) < needed;
  });
  if (short) {
    return {
      verdict: 'WARN',
      check,
      detail:
        `${listed}; the AI worker makes up to ${plan.aiConcurrency} calls at once (up to ` +
        `${tokensNeeded.toLocaleString('en-US')} tokens a minute): throttled calls are retried, then ` +
        'fail the enrichment or land in the AI dead-letter queue',
      action: increase(short),
    };
  }
  return { verdict: 'PASS', check, detail: listed };
}

async function checkLambdaConcurrency(plan: DeployPlan): Promise<CheckResult> {
  const check = 'Lambda concurrency';
  const raise = `request more in Service Quotas: AWS Lambda, Concurrent executions (${LAMBDA_CONCURRENCY_QUOTA})`;
  try {
    const answer = await new LambdaClient({ region: plan.region }).send(new GetAccountSettingsCommand({}));
    const limit = answer.AccountLimit?.ConcurrentExecutions ?? 0;
    const unreserved = answer.AccountLimit?.UnreservedConcurrentExecutions ?? 0;
    const left = unreserved - plan.reservedConcurrency;
    const counts =
      `account limit ${limit}, unreserved ${unreserved}; the stacks reserve ${plan.reservedConcurrency}, ` +
      `the workers run up to ${plan.workerConcurrency} at once`;
    if (plan.reservedConcurrency > 0 && left < LAMBDA_MIN_UNRESERVED) {
      return {
        verdict: 'FAIL',
        check,
        detail: `${counts}: Lambda refuses reservations that leave under ${LAMBDA_MIN_UNRESERVED} unreserved`,
        action: raise,
      };
    }
    if (left < plan.workerConcurrency) {
      return {
        verdict: 'FAIL',
        check,
        detail: `${counts}: the workers alone would take every execution and throttle the API`,
        action: raise,
      };
    }
    if (left < plan.workerConcurrency + LAMBDA_MIN_UNRESERVED) {
      return {
        verdict: 'WARN',
        check,
        detail: `${counts}: under ${LAMBDA_MIN_UNRESERVED} left for the API while the workers are busy`,
        action: raise,
      };
    }
    return { verdict: 'PASS', check, detail: counts };
  } catch (error) {
    return callFailed(check, 'GetAccountSettings', error, 'lambda:GetAccountSettings');
  }
}

/** Every check, in the order of the deploy guide. Read-only calls only. */
export async function runPreflight(plan: DeployPlan): Promise<CheckResult[]> {
  return [
    ...(await checkBootstraps(plan)),
    await checkCloudFront(),
    await checkSesSender(plan),
    await checkSesAccount(plan),
    ...(await checkBedrock(plan)),
    await checkBedrockQuotas(plan),
    await checkLambdaConcurrency(plan),
  ];
}

/** The checklist as printed: one line per check, its action indented below a WARN or FAIL. */
export function formatChecklist(results: readonly CheckResult[]): string {
  return results
    .map((r) => `${r.verdict.padEnd(4)}  ${r.check}: ${r.detail}${r.action ? `\n      -> ${r.action}` : ''}`)
    .join('\n');
}

/** A FAIL stops the deploy (or the service); WARNs do not. */
export function hasBlocker(results: readonly CheckResult[]): boolean {
  return results.some((r) => r.verdict === 'FAIL');
}

const PREFLIGHT_COMMAND_LINE = {
  usage: 'npm run preflight -- --region REGION --email-from SENDER [options]',
  summary:
    'Checks an AWS account before `npx cdk deploy`: the CDK bootstrap (of us-east-1 too while WAF is on), SES, Bedrock model access and quotas, Lambda concurrency. PASS, WARN or FAIL per line; exit 1 on any FAIL (docs/deploy.md).',
  options: {
    region: { type: 'string' },
    'email-from': { type: 'string' },
    model: { type: 'string' },
    'model-regions': { type: 'string' },
    waf: { type: 'string' },
  },
  help: {
    region: 'the region to deploy to (required)',
    'email-from': 'the emailFrom you will deploy with (required)',
    model: 'the Bedrock model or inference profile id (deploy parameter aiModelId)',
    'model-regions': 'the regions the model is called in, comma-separated (aiModelRegions)',
    waf: 'on or off, as the deploy will be (-c waf=off); on by default',
  },
} as const;
const USAGE = usageText(PREFLIGHT_COMMAND_LINE);

class UsageError extends Error {}

/**
 * `npm run preflight`: prints the checklist with `write` and returns the exit code (1 on any FAIL,
 * 2 on a usage error). `--waf off` plans the stacks as `-c waf=off` deploys them (no us-east-1 stack).
 */
export async function runPreflightCli(argv: string[], write: (text: string) => void): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    write(USAGE);
    return 0;
  }
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({ args: argv, options: PREFLIGHT_COMMAND_LINE.options, strict: true }).values;
    if (!values.region) throw new UsageError('--region is required');
    if (!values['email-from'])
      throw new UsageError('--email-from is required (the emailFrom you will deploy with)');
    if (values.waf !== undefined && values.waf !== 'on' && values.waf !== 'off') {
      throw new UsageError('--waf must be on or off');
    }
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const region = values.region as string;
  const plan = planFromApp({
    region,
    emailFrom: values['email-from'] as string,
    context: {
      ...(values.model ? { aiModelId: values.model } : {}),
      ...(values['model-regions'] ? { aiModelRegions: values['model-regions'] } : {}),
      ...(values.waf ? { waf: values.waf } : {}),
    },
  });
  const identity = await new STSClient({ region }).send(new GetCallerIdentityCommand({}));
  write(`Preflight of account ${identity.Account} in ${region}\n`);
  const results = await runPreflight(plan);
  write(`${formatChecklist(results)}\n`);
  return hasBlocker(results) ? 1 : 0;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runPreflightCli(process.argv.slice(2), (text) => process.stdout.write(text)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`preflight: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
