import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type Environment } from 'aws-cdk-lib';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { type RouteDefinition, routes as routeTable } from '../functions/routes.ts';
import { emailDomain, repoRoot } from './constructs/service-function.ts';
import { ApiStack, PLACEHOLDER_EMAIL_FROM } from './stacks/api-stack.ts';
import { type AiModelSettings, AsyncStack, DEFAULT_AI_MODEL } from './stacks/async-stack.ts';
import { DataStack } from './stacks/data-stack.ts';

export interface BuildAppOptions {
  /**
   * The app to add the stacks to.
   * @default - a new App with the context (feature flags) of cdk.json
   */
  readonly app?: App;
  /**
   * Context values merged over those of cdk.json, as `cdk synth -c key=value` would pass them (for
   * example `aiModelId` or `emailFrom`). Ignored when `app` is given.
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
  const stage = options.stage ?? (app.node.tryGetContext('stage') as string | undefined) ?? 'dev';
  if (!/^[A-Za-z][A-Za-z0-9]{0,15}$/.test(stage)) {
    throw new Error(`Stage "${stage}" must be letters and digits, starting with a letter (at most 16)`);
  }
  const env = options.env ?? defaultEnv();
  const prefix = `ListingsLeads-${stage}`;

  const data = new DataStack(app, `${prefix}-Data`, {
    env,
    description: 'Listings and Leads: table and photo bucket (retained)',
  });
  const async = new AsyncStack(app, `${prefix}-Async`, {
    env,
    description: 'Listings and Leads: stream consumer, AI queue and worker',
    table: data.table,
    aiModel: aiModelFromContext(app),
    emailFrom: emailFromContext(app),
  });
  const api = new ApiStack(app, `${prefix}-Api`, {
    env,
    description: 'Listings and Leads: HTTP API and one function per route',
    table: data.table,
    routes: options.routes ?? routeTable,
    aiQueue: async.aiQueue,
    emailFrom: emailFromContext(app),
  });
  return { app, data, api, async };
}

/**
 * The AI worker's model from context: `aiModelId` (a Bedrock foundation model id), with its prices
 * `aiPriceInputPer1kUsd` and `aiPriceOutputPer1kUsd` (USD per 1,000 tokens). Without `aiModelId`,
 * DEFAULT_AI_MODEL. Another model must come with both prices: charging Tenants the default model's
 * prices for it would make their spend ceilings meaningless.
 */
export function aiModelFromContext(app: App): AiModelSettings {
  const modelId = contextString(app, 'aiModelId') ?? DEFAULT_AI_MODEL.modelId;
  const input = contextPrice(app, 'aiPriceInputPer1kUsd');
  const output = contextPrice(app, 'aiPriceOutputPer1kUsd');
  if (modelId === DEFAULT_AI_MODEL.modelId) {
    return {
      modelId,
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
  return { modelId, priceInputPer1kUsd: input, priceOutputPer1kUsd: output };
}

/**
 * The SES sender of the routes that send email: context `emailFrom`, a plain address whose domain (or
 * the address itself) is a verified SES identity in the target region. Without it,
 * PLACEHOLDER_EMAIL_FROM (`no-reply@example.com`), and synth warns. Anything but a plain address fails
 * synth.
 */
export function emailFromContext(app: App): string {
  const from = contextString(app, 'emailFrom') ?? PLACEHOLDER_EMAIL_FROM;
  try {
    emailDomain(from);
  } catch (error) {
    throw new Error(
      `Context emailFrom must be a plain email address on an SES-verified identity: ${(error as Error).message}`,
    );
  }
  return from;
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
