import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type Environment, Fn, Token } from 'aws-cdk-lib';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import * as z from 'zod';
import type { RouteDefinition } from '../functions/pipeline/route.ts';
import { routes as routeTable } from '../functions/routes.ts';
import { emailDomain, parseBedrockModelId, REGION_NAME, repoRoot } from './constructs/service-function.ts';
import { ApiStack } from './stacks/api-stack.ts';
import {
  type AiModelSettings,
  AsyncStack,
  DEFAULT_AI_MODEL,
  defaultAiModelFor,
} from './stacks/async-stack.ts';
import { DataStack } from './stacks/data-stack.ts';
import {
  CLOUDFRONT_WAF_REGION,
  EdgeFirewallStack,
  WEB_ACL_ARN_OUTPUT,
} from './stacks/edge-firewall-stack.ts';
import { PhotoCdnStack } from './stacks/photo-cdn-stack.ts';
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
   * @default - CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION when the CLI has credentials, else the
   * region of context `region` alone, else environment-agnostic
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
  readonly photoCdn: PhotoCdnStack;
  readonly api: ApiStack;
  readonly async: AsyncStack;
  readonly site: SiteStack;
  /** The site distribution's web ACL, in us-east-1; absent with the deploy parameter `waf=off`. */
  readonly edgeFirewall?: EdgeFirewallStack;
}

/**
 * Builds the stacks of one stage. bin/app.ts and the infrastructure tests both start here.
 *
 * Order: data, photo CDN, async, API, site. The photo distribution has a stack of its own so that a
 * refusal of CloudFront (new accounts) never rolls the stateful data stack back. The async stack owns
 * the AI queue (with its dead-letter queue) and the API's routes that `use` it send to it, so the API
 * stack depends on the async stack (Data <- PhotoCdn <- Async <- Api <- Site; `cdk deploy --all`
 * deploys them in that order). The queue stays where it was, so existing stages keep it and its
 * messages. The async stack must therefore never reference the API stack: that would be a cycle.
 *
 * Every cross-stack value is an export (cdk.json `@aws-cdk/core:defaultCrossStackReferences`:
 * "strong"): CloudFormation refuses to change or remove an export a consumer still imports, so a
 * replaced queue or distribution fails the producer's deploy loudly instead of staying stale in a
 * consumer stack that `cdk deploy` skipped (what `Fn::GetStackOutput`, resolved only when the
 * consumer itself is updated, allowed). docs/deploy.md says how to replace one.
 */
export function buildApp(options: BuildAppOptions = {}): ServiceApp {
  const app = options.app ?? new App({ context: { ...cdkJsonContext(), ...options.context } });
  if (options.bundle === false) app.node.setContext(BUNDLING_STACKS, []);
  // Read first, so that a synth without them fails before anything is built, naming every one missing.
  const { emailFrom, alarmEmail } = requiredParameters(app);
  const env = options.env ?? deployEnv(app);
  const aiModel = aiModelFromContext(app, regionOf(app, env));
  const waf = wafFromContext(app);
  const stage = options.stage ?? (app.node.tryGetContext('stage') as string | undefined) ?? 'dev';
  if (!/^[A-Za-z][A-Za-z0-9]{0,15}$/.test(stage)) {
    throw new Error(`Stage "${stage}" must be letters and digits, starting with a letter (at most 16)`);
  }
  const prefix = `ListingsLeads-${stage}`;

  const data = new DataStack(app, `${prefix}-Data`, {
    env,
    description: 'Listings and Leads: table, photo bucket and cursor key',
  });
  const photoCdn = new PhotoCdnStack(app, `${prefix}-PhotoCdn`, {
    env,
    description: 'Listings and Leads: CloudFront in front of the photo bucket',
    photoBucket: data.photoBucket,
  });
  const photoBaseUrl = photoCdn.photoDistribution.baseUrl;
  const async = new AsyncStack(app, `${prefix}-Async`, {
    env,
    description: 'Listings and Leads: stream consumer, AI queue and worker, alarm topic',
    table: data.table,
    cursorSecret: data.cursorSecret,
    photoBucket: data.photoBucket,
    photoBaseUrl,
    photoDistribution: photoCdn.photoDistribution.distribution,
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
    photoBaseUrl,
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
    ...originSecretVersionFromContext(app),
    photoBucketName: data.photoBucket.bucketName,
    // Read across regions by name: the firewall stack is in us-east-1 whatever the others' region.
    ...(edgeFirewall
      ? { webAclArn: Fn.getStackOutput(edgeFirewall.stackName, WEB_ACL_ARN_OUTPUT, CLOUDFRONT_WAF_REGION) }
      : {}),
  });
  if (edgeFirewall)
    site.addStackDependency(edgeFirewall, 'the site distribution references the edge web ACL');
  return { app, data, photoCdn, api, async, site, ...(edgeFirewall ? { edgeFirewall } : {}) };
}

/**
 * The deploy parameters (CDK context, `-c key=value` or cdk.json's `context`). docs/deploy.md's
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
  region: {
    required: false,
    example: 'eu-west-1',
    meaning:
      "the region to deploy to (else the AWS profile's); it picks the default AI model's inference profile",
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
 *
 * Without `aiModelId`: Nova Lite through the geographic inference profile of `region`, the stacks'
 * region (defaultAiModelFor), since Nova Lite on demand is served in-region in a few regions only. A
 * synth that knows no region (environment-agnostic) fails then, asking for `-c region` or an explicit
 * `aiModelId`; so does a geographic profile that `region` cannot call (`us.…` from eu-west-1).
 *
 * A model other than the default's foundation model must come with both prices: charging Tenants the
 * default model's prices for it would make their spend ceilings meaningless. A geographic profile of
 * the default model (`eu.amazon.nova-lite-v1:0`) keeps its prices: Bedrock charges cross-region
 * inference at the source region's on-demand price.
 */
export function aiModelFromContext(app: App, region?: string): AiModelSettings {
  const explicitId = contextString(app, 'aiModelId');
  if (explicitId === undefined && region === undefined) {
    throw new Error(
      'The default AI model (Amazon Nova Lite) is called through the inference profile of the deploy ' +
        "region's geography (us., eu. or apac.), and this synth knows no region. Pass the region: " +
        '`-c region=eu-west-1` (or run cdk with an AWS profile that names one), or the model: ' +
        '`-c aiModelId=eu.amazon.nova-lite-v1:0`.',
    );
  }
  const byDefault = explicitId === undefined && region !== undefined ? defaultAiModelFor(region) : undefined;
  const modelId = explicitId ?? byDefault?.modelId ?? DEFAULT_AI_MODEL.modelId;
  let target: ReturnType<typeof parseBedrockModelId>;
  try {
    target = parseBedrockModelId(modelId);
  } catch (error) {
    throw new Error(`Context aiModelId: ${(error as Error).message}`);
  }
  if (region !== undefined && target.geography && !geographyServes(target.geography, region)) {
    throw new Error(
      `Context aiModelId=${modelId} is a ${target.geography}. inference profile, which ${region} cannot ` +
        `call (a geographic profile is called from a region of its geography). Pass the profile of ` +
        `${region}'s geography, or leave aiModelId out to get it by default.`,
    );
  }
  const regionsValue = contextString(app, 'aiModelRegions');
  const listedRegions = regionsValue
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (listedRegions && !target.isInferenceProfile) {
    throw new Error(
      `Context aiModelRegions applies to an inference profile id only; ${modelId} is a foundation model, ` +
        "invoked in the stack's own region.",
    );
  }
  const destinationRegions = listedRegions ?? byDefault?.destinationRegions;
  const input = contextPrice(app, 'aiPriceInputPer1kUsd');
  const output = contextPrice(app, 'aiPriceOutputPer1kUsd');
  const destinations = destinationRegions ? { destinationRegions } : {};
  if (target.foundationModelId === DEFAULT_AI_MODEL.modelId) {
    return {
      modelId,
      ...destinations,
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
  return { modelId, ...destinations, priceInputPer1kUsd: input, priceOutputPer1kUsd: output };
}

/**
 * Whether a geographic profile may be called from `region`: by the region name's prefix (`eu-`, `us-`,
 * `ap-` for apac, jp and au). `global.` and geographies this does not know pass.
 */
function geographyServes(geography: string, region: string): boolean {
  const prefixes: Record<string, readonly string[]> = {
    us: ['us-'],
    'us-gov': ['us-gov-'],
    eu: ['eu-'],
    apac: ['ap-'],
    jp: ['ap-northeast-'],
    au: ['ap-southeast-'],
    ca: ['ca-'],
  };
  const accepted = prefixes[geography];
  return accepted === undefined || accepted.some((prefix) => region.startsWith(prefix));
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

/**
 * Context `originSecretVersion`: the version id of the origin secret the site distribution sends
 * (docs/operations.md, "Rotate the secrets"), passed on the deploy that follows a new value.
 */
export function originSecretVersionFromContext(app: App): { originSecretVersionId?: string } {
  const value = contextString(app, 'originSecretVersion');
  if (value === undefined) return {};
  // Secrets Manager version ids are UUIDs (32 to 64 characters).
  if (!/^[A-Za-z0-9-]{32,64}$/.test(value)) {
    throw new Error(
      `Context originSecretVersion must be a Secrets Manager version id (the VersionId put-secret-value printed), not ${JSON.stringify(value)}`,
    );
  }
  return { originSecretVersionId: value };
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

/**
 * Where the stacks go: the CLI's account and region when it has credentials (CDK_DEFAULT_ACCOUNT and
 * CDK_DEFAULT_REGION), or the region of context `region` alone. Otherwise environment-agnostic (an
 * offline synth, tests): the default model's region is then the CLI's region (regionOf).
 */
function deployEnv(app: App): Environment | undefined {
  const account = process.env.CDK_DEFAULT_ACCOUNT || undefined;
  const requested = contextString(app, 'region');
  const region = requested ?? (process.env.CDK_DEFAULT_REGION || undefined);
  if (account && region) return { account, region };
  return requested ? { region: requested } : undefined;
}

/** The region the stacks are bound to, checked against context `region`; undefined when agnostic. */
function regionOf(app: App, env: Environment | undefined): string | undefined {
  const requested = contextString(app, 'region');
  if (requested !== undefined && !REGION_NAME.test(requested)) {
    throw new Error(`Context region must be an AWS region name (like eu-west-1), not "${requested}"`);
  }
  const bound = env?.region !== undefined && !Token.isUnresolved(env.region) ? env.region : undefined;
  if (requested !== undefined && bound !== undefined && requested !== bound) {
    throw new Error(`Context region=${requested} contradicts the environment's region ${bound}`);
  }
  // An environment-agnostic stack goes where the CLI deploys it: the AWS profile's region, which the
  // CLI passes as CDK_DEFAULT_REGION (us-east-1 without one).
  return bound ?? requested ?? (process.env.CDK_DEFAULT_REGION || undefined);
}
