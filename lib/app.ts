import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type Environment, Fn } from 'aws-cdk-lib';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import * as z from 'zod';
import type { RouteDefinition } from '../functions/api/route.ts';
import { routes as routeTable } from '../functions/routes.ts';
import { emailDomain, parseBedrockModelId, repoRoot } from './constructs/service-function.ts';
import { ApiStack } from './stacks/api-stack.ts';
import { type AiModelSettings, AsyncStack, DEFAULT_AI_MODEL } from './stacks/async-stack.ts';
import { DataStack } from './stacks/data-stack.ts';
import {
  CLOUDFRONT_WAF_REGION,
  EdgeFirewallStack,
  WEB_ACL_ARN_OUTPUT,
} from './stacks/edge-firewall-stack.ts';
import { SiteStack } from './stacks/site-stack.ts';

export interface BuildAppOptions {
  /**
   * The app to add the stacks to.
   * @default - a new App with the context (feature flags) of cdk.json
   */
  readonly app?: App;
  /**
   * Context values merged over those of cdk.json, as `cdk synth -c key=value` would pass them (the
   * deploy parameters of DEPLOY_PARAMETERS: `emailFrom`, `alarmEmail`, `aiModelId`…). Ignored when
   * `app` is given.
   * @default - cdk.json's context only
   */
  readonly context?: Record<string, unknown>;
  /**
   * Stage name, part of every stack name (`ListingsLeads-<stage>-Api`).
   * @default - the `stage` context value, else 'dev'
   */
  readonly stage?: string;
  /**
   * Account and region.
   * @default - environment-agnostic unless CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION are set
   */
  readonly env?: Environment;
  /**
   * Whether to bundle the functions' code. Tests that only look at templates turn it off to save the
   * esbuild runs; the templates are the same apart from asset hashes.
   * @default true
   */
  readonly bundle?: boolean;
  /**
   * The route table. Only tests pass another one (to check how the stacks grow).
   * @default - the rows of functions/routes.ts
   */
  readonly routes?: readonly RouteDefinition[];
}

export interface ServiceApp {
  readonly app: App;
  readonly data: DataStack;
  readonly api: ApiStack;
  readonly async: AsyncStack;
  readonly site: SiteStack;
  /** The site distribution's web ACL, in us-east-1; absent with the deploy parameter `waf=off`. */
  readonly edgeFirewall?: EdgeFirewallStack;
}

/**
 * Builds the stacks of one stage. bin/app.ts and the infrastructure tests both start here.
 *
 * Order: data, then async, then API. The async stack owns the AI queue (with its dead-letter queue)
 * and the API's routes that `use` it send to it, so the API stack depends on the async stack
 * (Data <- Async <- Api; CloudFormation deploys them in that order). The queue stays where it was, so
 * existing stages keep it and its messages. The async stack must therefore never reference the API
 * stack: that would be a dependency cycle.
 */
export function buildApp(options: BuildAppOptions = {}): ServiceApp {
  const app = options.app ?? new App({ context: { ...cdkJsonContext(), ...options.context } });
  if (options.bundle === false) app.node.setContext(BUNDLING_STACKS, []);
  // Read first, so that a synth without them fails before anything is built, naming every one missing.
  const { emailFrom, alarmEmail } = requiredParameters(app);
  const aiModel = aiModelFromContext(app);
  const waf = wafFromContext(app);
  const stage = options.stage ?? (app.node.tryGetContext('stage') as string | undefined) ?? 'dev';
  if (!/^[A-Za-z][A-Za-z0-9]{0,15}$/.test(stage)) {
    throw new Error(`Stage "${stage}" must be letters and digits, starting with a letter (at most 16)`);
  }
  const env = options.env ?? defaultEnv();
  const prefix = `ListingsLeads-${stage}`;

  const data = new DataStack(app, `${prefix}-Data`, {
    env,
    description: 'Listings and Leads: table, photo bucket and cursor key',
  });
  const async = new AsyncStack(app, `${prefix}-Async`, {
    env,
    description: 'Listings and Leads: stream consumer, AI queue and worker, alarm topic',
    table: data.table,
    cursorSecret: data.cursorSecret,
    photoBucket: data.photoBucket,
    photoBaseUrl: data.photoDistribution.baseUrl,
    alarmEmail,
    aiModel,
    emailFrom,
  });
  const api = new ApiStack(app, `${prefix}-Api`, {
    env,
    description: 'Listings and Leads: HTTP API and one function per route',
    table: data.table,
    routes: options.routes ?? routeTable,
    aiQueue: async.aiQueue,
    imageImportQueue: async.imageImport.queue,
    photoBucket: data.photoBucket,
    photoBaseUrl: data.photoDistribution.baseUrl,
    cursorSecret: data.cursorSecret,
    alarmTopic: async.alarmTopic.topic,
    emailFrom,
    siteSecrets: { origin: data.siteOriginSecret, turnstile: data.turnstileSecret },
  });
  const edgeFirewall = waf
    ? new EdgeFirewallStack(app, `${prefix}-EdgeFirewall`, {
        ...(env?.account ? { account: env.account } : {}),
        description: 'Listings and Leads: the web ACL of the site distribution (us-east-1, CloudFront scope)',
      })
    : undefined;
  const site = new SiteStack(app, `${prefix}-Site`, {
    env,
    description: 'Listings and Leads: CloudFront in front of the site API',
    apiEndpoint: api.api.apiEndpoint,
    originSecret: data.siteOriginSecret,
    photoBucketName: data.photoBucket.bucketName,
    // Read across regions by name: the firewall stack is in us-east-1 whatever the others' region.
    ...(edgeFirewall
      ? { webAclArn: Fn.getStackOutput(edgeFirewall.stackName, WEB_ACL_ARN_OUTPUT, CLOUDFRONT_WAF_REGION) }
      : {}),
  });
  if (edgeFirewall) site.addDependency(edgeFirewall);
  return { app, data, api, async, site, ...(edgeFirewall ? { edgeFirewall } : {}) };
}

/**
 * The deploy parameters (CDK context, `-c key=value` or cdk.json's `context`). The README's Deploy
 * section shows this table.
 */
export const DEPLOY_PARAMETERS = {
  emailFrom: {
    required: true,
    example: 'no-reply@your-domain.com',
    meaning: 'the SES sender, a plain address on an identity verified in the target region',
  },
  alarmEmail: {
    required: true,
    example: 'ops@your-domain.com',
    meaning: 'where every alarm is emailed; SNS asks the address to confirm once',
  },
  waf: {
    required: false,
    example: 'off',
    meaning:
      'on (default) or off: an AWS WAF web ACL with per-address rate limits in front of the site distribution (a us-east-1 stack)',
  },
  aiModelId: {
    required: false,
    example: 'eu.amazon.nova-lite-v1:0',
    meaning: 'the Bedrock model: a foundation model id or a cross-region inference profile id',
  },
} as const;

/** The parameters without which nothing can be deployed; all missing ones are named in one error. */
function requiredParameters(app: App): { emailFrom: string; alarmEmail: string } {
  const missing = (['emailFrom', 'alarmEmail'] as const).filter(
    (key) => contextString(app, key) === undefined,
  );
  if (missing.length > 0) {
    const flags = missing.map((key) => `-c ${key}=${DEPLOY_PARAMETERS[key].example}`).join(' ');
    throw new Error(
      `Missing deploy parameter${missing.length > 1 ? 's' : ''}: ` +
        `${missing.map((key) => `${key} (${DEPLOY_PARAMETERS[key].meaning})`).join('; ')}. ` +
        `Pass ${missing.length > 1 ? 'them' : 'it'} as CDK context: \`npx cdk synth ${flags}\` ` +
        '(the same flags for cdk deploy), or set them in the "context" of cdk.json.',
    );
  }
  return { emailFrom: emailFromContext(app), alarmEmail: alarmEmailFromContext(app) };
}

/**
 * The AI worker's model from context: `aiModelId` (a Bedrock foundation model id such as
 * `amazon.nova-lite-v1:0`, or a cross-region inference profile id such as `eu.amazon.nova-lite-v1:0`),
 * with its prices `aiPriceInputPer1kUsd` and `aiPriceOutputPer1kUsd` (USD per 1,000 tokens) and, for a
 * profile, optionally `aiModelRegions` (comma-separated destination regions to grant the model in).
 * Without `aiModelId`, DEFAULT_AI_MODEL. A model other than the default's foundation model must come
 * with both prices: charging Tenants the default model's prices for it would make their spend ceilings
 * meaningless. A geographic profile of the default model (`eu.amazon.nova-lite-v1:0`) keeps its prices:
 * Bedrock charges cross-region inference at the source region's on-demand price.
 */
export function aiModelFromContext(app: App): AiModelSettings {
  const modelId = contextString(app, 'aiModelId') ?? DEFAULT_AI_MODEL.modelId;
  let target: ReturnType<typeof parseBedrockModelId>;
  try {
    target = parseBedrockModelId(modelId);
  } catch (error) {
    throw new Error(`Context aiModelId: ${(error as Error).message}`);
  }
  const regionsValue = contextString(app, 'aiModelRegions');
  const destinationRegions = regionsValue
    ?.split(',')
    .map((region) => region.trim())
    .filter((region) => region !== '');
  if (destinationRegions && !target.isInferenceProfile) {
    throw new Error(
      `Context aiModelRegions applies to an inference profile id only; ${modelId} is a foundation model, ` +
        "invoked in the stack's own region.",
    );
  }
  const input = contextPrice(app, 'aiPriceInputPer1kUsd');
  const output = contextPrice(app, 'aiPriceOutputPer1kUsd');
  const region = destinationRegions ? { destinationRegions } : {};
  if (target.foundationModelId === DEFAULT_AI_MODEL.modelId) {
    return {
      modelId,
      ...region,
      priceInputPer1kUsd: input ?? DEFAULT_AI_MODEL.priceInputPer1kUsd,
      priceOutputPer1kUsd: output ?? DEFAULT_AI_MODEL.priceOutputPer1kUsd,
    };
  }
  if (input === undefined || output === undefined) {
    throw new Error(
      `Context aiModelId=${modelId} needs aiPriceInputPer1kUsd and aiPriceOutputPer1kUsd as well ` +
        "(USD per 1,000 tokens, from Bedrock's price list): AI spend is charged at them.",
    );
  }
  return { modelId, ...region, priceInputPer1kUsd: input, priceOutputPer1kUsd: output };
}

/**
 * The SES sender of the routes that send email: context `emailFrom`, a plain address whose domain (or
 * the address itself) is a verified SES identity in the target region. Anything but a plain address
 * fails synth.
 */
export function emailFromContext(app: App): string {
  const from = contextString(app, 'emailFrom');
  if (from === undefined) throw new Error('Context emailFrom is required');
  try {
    emailDomain(from);
  } catch (error) {
    throw new Error(
      `Context emailFrom must be a plain email address on an SES-verified identity: ${(error as Error).message}`,
    );
  }
  return from;
}

/**
 * Whether the site distribution gets its web ACL: context `waf`, `on` (the default) or `off`
 * (`-c waf=off` passes a string, cdk.json may hold a boolean). Anything else fails synth.
 */
export function wafFromContext(app: App): boolean {
  const value: unknown = app.node.tryGetContext('waf');
  if (value === undefined || value === null || value === '' || value === 'on' || value === true) return true;
  if (value === 'off' || value === false) return false;
  throw new Error(
    `Context waf must be on or off, not ${JSON.stringify(value)}: pass -c waf=off to deploy the site ` +
      'distribution without its web ACL (and without the us-east-1 stack), or leave it out for the default, on.',
  );
}

/** The address alarms are emailed to: context `alarmEmail`, a plain address. */
export function alarmEmailFromContext(app: App): string {
  const email = contextString(app, 'alarmEmail');
  if (email === undefined) throw new Error('Context alarmEmail is required');
  if (!z.email().safeParse(email).success) {
    throw new Error(
      `Context alarmEmail must be a plain email address (like ops@your-domain.com), not "${email}"`,
    );
  }
  return email;
}

function contextString(app: App, key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context ${key} must be a string`);
  return value;
}

/** A price from context; `-c key=0.001` passes a string, cdk.json a number. */
function contextPrice(app: App, key: string): number | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  const price = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(price) || price < 0) {
    throw new Error(`Context ${key} must be a non-negative number (USD per 1,000 tokens)`);
  }
  return price;
}

/**
 * The context of cdk.json. The CLI passes it to bin/app.ts by itself; reading it here as well gives
 * tests the same feature flags, so that they assert on the templates `cdk synth` produces.
 */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

function defaultEnv(): Environment | undefined {
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  return account && region ? { account, region } : undefined;
}
