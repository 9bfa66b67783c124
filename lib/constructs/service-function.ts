import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, AssetHashType, Duration, type ILocalBundling, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  Function as LambdaFunction,
  RecursiveLoop,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import * as z from 'zod';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';
import type { TableAction } from '../../functions/workers.ts';
import { bundleFunctionSync, type FunctionEntry, HANDLER_FILE } from '../bundling.ts';

/** The repository root: entries, the lock file and tsconfig.json all live under it. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The closed list of table actions, declared beside the worker table; route grants use the same list. */
export type { TableAction } from '../../functions/workers.ts';

/**
 * Reads: key lookups (one, or a batch: a Lead's linked listings, criteria Places), and queries on the
 * table and its indexes.
 */
export const TABLE_READ: readonly TableAction[] = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
];

/**
 * Writes besides UpdateItem: puts and deletes alone, in batches (a listing's Area memberships, sent
 * matches) or in transactions, whose condition-only items need ConditionCheckItem.
 */
export const TABLE_WRITE: readonly TableAction[] = [
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/** A Bedrock foundation model id: `provider.model`, e.g. `anthropic.claude-3-haiku-20240307-v1:0`. */
const FOUNDATION_MODEL_ID = /^[a-z0-9-]+\.[A-Za-z0-9._:-]+$/;
/** The geography prefixes of cross-region inference profile ids (`eu.amazon.nova-lite-v1:0`). */
const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;
/**
 * cdk-nag's finding for the SES grant on every identity of the account (bindEmailSender), however the
 * partition, region and account are rendered (tokens, or literals in a stack bound to a region).
 */
export const SES_IDENTITY_WILDCARD = '/^Resource::arn:(<AWS::Partition>|aws[a-z-]*):ses:.+:identity\\/\\*$/g';

/** An AWS region name (`eu-west-1`, `us-gov-west-1`). */
export const REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d$/;

/**
 * What a Bedrock model id names: a foundation model invoked in the caller's region, or a system-defined
 * cross-region inference profile (`<geography>.<foundation model id>`) that Bedrock routes to one of
 * its destination regions.
 */
export interface BedrockModelTarget {
  /** The id exactly as configured (`AI_MODEL_ID`): what the worker passes as `modelId`. */
  readonly modelId: string;
  /** The foundation model that runs: the id itself, or the profile id without its geography prefix. */
  readonly foundationModelId: string;
  /** True for an inference profile id. */
  readonly isInferenceProfile: boolean;
  /** A profile's geography prefix without its dot (`eu`, `us`, `global`…). */
  readonly geography?: string;
}

/**
 * Reads a Bedrock model id: a foundation model id (`amazon.nova-lite-v1:0`) or a cross-region inference
 * profile id (`eu.amazon.nova-lite-v1:0`, `us.…`, `apac.…`, `global.…`). ARNs and application inference
 * profiles are refused: the grants below are derived from the id.
 */
export function parseBedrockModelId(modelId: string): BedrockModelTarget {
  const profile = INFERENCE_PROFILE_PREFIX.exec(modelId);
  const foundationModelId = profile ? modelId.slice(profile[0].length) : modelId;
  if (!FOUNDATION_MODEL_ID.test(foundationModelId) || INFERENCE_PROFILE_PREFIX.test(foundationModelId)) {
    throw new Error(
      `"${modelId}" is neither a Bedrock foundation model id (provider.model, e.g. amazon.nova-lite-v1:0) ` +
        'nor a cross-region inference profile id (geography.provider.model, e.g. eu.amazon.nova-lite-v1:0); ' +
        'ARNs and application inference profiles are not supported.',
    );
  }
  return {
    modelId,
    foundationModelId,
    isInferenceProfile: profile !== null,
    ...(profile?.[1] ? { geography: profile[1] } : {}),
  };
}

/**
 * The domain of a sender address, which must be a plain address (no display name) that the functions'
 * configuration accepts (`EMAIL_FROM`, functions/kernel/config.ts): the same zod check, so that synth
 * refuses what the functions would refuse at cold start.
 */
export function emailDomain(address: string): string {
  if (!z.email().safeParse(address).success) {
    throw new Error(`"${address}" is not a plain email address (like no-reply@example.com)`);
  }
  return address.slice(address.lastIndexOf('@') + 1);
}

/** What `bindTable` grants. */
export interface TableAccess {
  /** Granted on the table itself (`dynamodb:Query` is also granted on every index in `indexNames`). */
  readonly actions: readonly TableAction[];
  /**
   * Indexes the function queries. Named one by one instead of `index/*` so that the policy carries
   * no wildcard.
   * @default - no index access
   */
  readonly indexNames?: readonly string[];
}

export interface ServiceFunctionProps {
  /** Absolute path of the handler module; it must export `handler`. */
  readonly entry: string;
  /**
   * The function's row of the route table, for an HTTP operation: its bundle registers that row alone
   * and does not carry the route table (lib/bundling.ts).
   * @default - not an HTTP operation
   */
  readonly route?: RouteDefinition;
  /**
   * Shown in the console next to the generated function name.
   * @default - no description
   */
  readonly description?: string;
  /**
   * Memory (and so CPU share). 1024 MB keeps the cold start of a bundled SDK + zod + ElectroDB short.
   * @default 1024
   */
  readonly memorySize?: number;
  /**
   * The processor. Graviton for every function but one whose native package's arm64 build cannot be
   * installed where the stacks are synthesized (functions/workers.ts `architecture`).
   * @default Architecture.ARM_64
   */
  readonly architecture?: Architecture;
  /**
   * Hard stop for one invocation. HTTP API gives up after 30 s, so API functions stay well under it.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * How long the function's own log group keeps its logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the function is removed. Logs are evidence, so they outlive it.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * X-Ray tracing mode. Off by default: the functions do not load the X-Ray SDK (Powertools Tracer), so
   * an active trace would hold only Lambda's own segment, which the function's metrics and its
   * request log line already tell; see docs/operations.md, Observability.
   * @default Tracing.DISABLED
   */
  readonly tracing?: Tracing;
  /**
   * Powertools log level (`LOG_LEVEL`).
   * @default 'INFO'
   */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Powertools service name (`POWERTOOLS_SERVICE_NAME`), the `service` key of every log line.
   * @default 'listings-leads'
   */
  readonly serviceName?: string;
  /**
   * Where Lambda puts an asynchronous invocation's event once its retries are spent (DeadLetterConfig).
   * Only for functions invoked asynchronously (a schedule); the role gets `sqs:SendMessage` on it.
   * @default - none
   */
  readonly deadLetterQueue?: IQueue;
  /**
   * Extra environment variables, merged over the defaults.
   * @default - only the defaults
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Whether Lambda lets the function run on in a chain of invocations it feeds itself (a message it
   * sends to the queue that invokes it, and so on): by default Lambda's recursive loop detection stops
   * such a chain after about 16 invocations and the message goes to the queue's dead-letter queue.
   * `allow` only for a function whose own logic ends the chain (functions/workers.ts `recursiveLoop`).
   * @default 'terminate'
   */
  readonly recursiveLoop?: 'allow' | 'terminate';
}

/**
 * CDK's local bundling step for one function: esbuild in this process (lib/bundling.ts), no Docker.
 * A class with the entry as a field, not an object literal: CDK keys its asset cache on the bundling
 * options as JSON, and a closure alone would make every function's options look the same.
 */
class LocalEsbuild implements ILocalBundling {
  readonly entry: FunctionEntry;

  constructor(entry: FunctionEntry) {
    this.entry = entry;
  }

  tryBundle(outputDir: string): boolean {
    bundleFunctionSync(this.entry, outputDir);
    return true;
  }
}

/** The CloudWatch namespace of the business metrics (functions/kernel/metrics.ts, EMF). */
export const METRICS_NAMESPACE = 'ListingsLeads';

/**
 * One Lambda function of the service, with the defaults every function must have: Node.js 24 on ARM64
 * (one worker on x86_64, for its native package), bundled at synth by the local esbuild with the
 * options of lib/bundling.ts (ESM, code splitting, the SDK included; no Docker), its own log
 * group with a retention, source maps loaded by Node (`--enable-source-maps`) so that a logged stack
 * trace points into the TypeScript sources, Powertools settings (service name, log level, metrics
 * namespace), and a role that starts with nothing but writing to that log group. Access is added with
 * `bindTable`, `bindQueue`, `bindSecret`, `bindEmailSender` and `bindBedrockModel`, each granting only
 * the actions its caller names or needs.
 */
export class ServiceFunction extends Construct {
  /** Absolute path of the handler module (test/infra/permissions.test.ts names workers by it). */
  readonly entry: string;
  readonly fn: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.entry = props.entry;

    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });

    // Our own role instead of the default one: the default attaches the AWS managed
    // AWSLambdaBasicExecutionRole (logs:* on every log group); this one may only write its own group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    this.logGroup.grantWrite(this.role);

    const tracing = props.tracing ?? Tracing.DISABLED;
    const entry: FunctionEntry = { module: props.entry, ...(props.route ? { route: props.route } : {}) };
    this.fn = new LambdaFunction(this, 'Function', {
      // Not NodejsFunction: it bundles into one file (esbuild --outfile), which inlines every dynamic
      // import; lib/bundling.ts splits them into chunks loaded only when used. esbuild runs in this
      // process (local bundling); the image is never pulled, since the local step throws rather than
      // hand over to Docker.
      code: Code.fromAsset(repoRoot, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          image: Runtime.NODEJS_24_X.bundlingImage,
          local: new LocalEsbuild(entry),
        },
      }),
      handler: `${HANDLER_FILE.replace(/\.mjs$/, '')}.handler`,
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: props.architecture ?? Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing,
      role: this.role,
      logGroup: this.logGroup,
      deadLetterQueue: props.deadLetterQueue,
      ...(props.recursiveLoop === 'allow' ? { recursiveLoop: RecursiveLoop.ALLOW } : {}),
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName ?? 'listings-leads',
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        LOG_LEVEL: props.logLevel ?? 'INFO',
        // Stack traces in the logs point at functions/**/*.ts lines instead of the minified bundle.
        // Costs cold start (Node reads the map when the bundle loads; see docs/architecture.md, Memory, and docs/bench.md).
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });

    if (tracing !== Tracing.DISABLED) {
      this.suppressWildcardResource(
        'xray:PutTraceSegments and xray:PutTelemetryRecords (added by active tracing) do not support ' +
          'resource-level permissions: IAM only accepts "*" for them.',
      );
    } else {
      NagSuppressions.addResourceSuppressions(this.fn, [
        {
          id: 'Serverless-LambdaTracing',
          reason:
            'X-Ray tracing is off on purpose: the functions do not load the X-Ray SDK (Powertools Tracer ' +
            'adds its module load to every cold start, and AWS has put the X-Ray SDKs in maintenance in ' +
            'favour of OpenTelemetry), so a trace would hold only the Lambda segment. Requests are ' +
            'followed by the request id on every log line and by the EMF business metrics instead.',
        },
      ]);
    }
  }

  /**
   * Gives the function the table's name (`TABLE_NAME`) and exactly `access.actions` on the table;
   * `dynamodb:Query` is also granted on each index of `access.indexNames`, the only action that
   * applies to an index.
   */
  bindTable(table: ITable, access: TableAccess): void {
    this.fn.addEnvironment('TABLE_NAME', table.tableName);
    if (access.actions.length === 0) return;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...new Set(access.actions)], resources: [table.tableArn] }),
    );
    const indexNames = access.indexNames ?? [];
    if (access.actions.includes('dynamodb:Query') && indexNames.length > 0) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: indexNames.map((name) => `${table.tableArn}/index/${name}`),
        }),
      );
    }
  }

  /**
   * Lets the function send to `queue`, and nothing else on it: the queue's URL in `environmentVariable`
   * and `sqs:SendMessage` on that queue alone (not `grantSendMessages`, which adds
   * `GetQueueAttributes` and `GetQueueUrl`, neither needed with the URL at hand). A KMS-encrypted queue
   * would also need its key; the queues of this service are SQS-managed.
   */
  bindQueue(queue: IQueue, environmentVariable: string): void {
    this.fn.addEnvironment(environmentVariable, queue.queueUrl);
    queue.grant(this.role, 'sqs:SendMessage');
  }

  /**
   * Lets the function read one Secrets Manager secret: its ARN in `environmentVariable` and
   * `secretsmanager:GetSecretValue` on that secret alone (not `grantRead`, which adds `DescribeSecret`,
   * unused). The secret's value never appears in the template or the function's configuration; the
   * function reads it at run time (once per container). Secrets encrypted with the AWS managed key need
   * no KMS grant.
   */
  bindSecret(secret: ISecret, environmentVariable: string): void {
    this.fn.addEnvironment(environmentVariable, secret.secretArn);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
  }

  /**
   * Lets the function send email through Amazon SES (v2 `SendEmail`) as `from`, and as no one else:
   * the address in `EMAIL_FROM` and `ses:SendEmail`
   * - on the SES identities that can cover the sender in the stack's region: its domain
   *   (`identity/example.com`, the usual verified identity) and the address itself
   *   (`identity/no-reply@example.com`), which SES authorizes against instead when the address is
   *   verified on its own;
   * - on every identity of the account and region (`identity/*`), on the condition that the sender is
   *   `from` (`ses:FromAddress`). In the SES sandbox (every new account) SES also authorizes the caller
   *   against each recipient's identity (the verified addresses a sandboxed account may send to): not
   *   in AWS's documentation, but reported by users with `AccessDenied … on resource identity/<recipient>`.
   *   Granted always rather than behind a setting, so that leaving the sandbox needs no redeploy and a
   *   first deploy cannot get it wrong; the condition keeps the function from sending as another
   *   verified identity.
   * The service sends without a configuration set; if ops attach a default configuration set to the
   * identity, SES also checks `ses:SendEmail` on that set, which this does not grant.
   */
  bindEmailSender(from: string): void {
    const domain = emailDomain(from);
    this.fn.addEnvironment('EMAIL_FROM', from);
    const stack = Stack.of(this);
    const identityArn = (identity: string) =>
      stack.formatArn({
        service: 'ses',
        resource: 'identity',
        resourceName: identity,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['ses:SendEmail'], resources: [domain, from].map(identityArn) }),
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [identityArn('*')],
        conditions: { StringEquals: { 'ses:FromAddress': from } },
      }),
    );
    NagSuppressions.addResourceSuppressions(
      this.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            "In the SES sandbox SES authorizes ses:SendEmail against each recipient's identity as well, " +
            "and the recipients are the account's verified identities: any of them, but only with the " +
            `service's own sender (condition ses:FromAddress = ${from}).`,
          appliesTo: [{ regex: SES_IDENTITY_WILDCARD }],
        },
      ],
      true,
    );
  }

  /**
   * Lets the function call one Amazon Bedrock model (Converse or InvokeModel, no streaming; both are
   * authorized as `bedrock:InvokeModel`): its id in `AI_MODEL_ID`, and `bedrock:InvokeModel` on
   * - a foundation model id (`amazon.nova-lite-v1:0`): that model's ARN in the stack's region only;
   * - an inference profile id (`eu.amazon.nova-lite-v1:0`): the profile's ARN in the stack's region
   *   (where the call is made), and the foundation model's ARN in the regions Bedrock routes the
   *   profile to, on the condition that the call comes through that profile (`bedrock:InferenceProfileArn`),
   *   so the model cannot be invoked directly anywhere. Those regions are `destinationRegions` when
   *   given; otherwise every region (`arn:…:bedrock:*::foundation-model/<model>`), because a profile's
   *   destination regions are AWS's to extend and a stale list would fail calls with AccessDenied.
   */
  bindBedrockModel(modelId: string, options: { readonly destinationRegions?: readonly string[] } = {}): void {
    const target = parseBedrockModelId(modelId);
    const stack = Stack.of(this);
    const foundationModelArn = (region: string) =>
      stack.formatArn({
        service: 'bedrock',
        region,
        account: '',
        resource: 'foundation-model',
        resourceName: target.foundationModelId,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
    this.fn.addEnvironment('AI_MODEL_ID', modelId);
    if (!target.isInferenceProfile) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['bedrock:InvokeModel'],
          resources: [foundationModelArn(stack.region)],
        }),
      );
      return;
    }
    const regions = options.destinationRegions ?? [];
    for (const region of regions) {
      if (!REGION_NAME.test(region))
        throw new Error(`"${region}" is not an AWS region name (like eu-west-1)`);
    }
    const profileArn = stack.formatArn({
      service: 'bedrock',
      resource: 'inference-profile',
      resourceName: modelId,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['bedrock:InvokeModel'], resources: [profileArn] }),
    );
    const modelResources =
      regions.length > 0 ? [...new Set(regions)].map(foundationModelArn) : [foundationModelArn('*')];
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: modelResources,
        conditions: { StringEquals: { 'bedrock:InferenceProfileArn': profileArn } },
      }),
    );
    if (regions.length === 0) {
      NagSuppressions.addResourceSuppressions(
        this.role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              `The foundation model ${target.foundationModelId} is granted in every region, but only when ` +
              `invoked through the inference profile ${modelId} (condition bedrock:InferenceProfileArn): ` +
              'Bedrock picks the destination region among those of the profile, which AWS extends over time.',
            appliesTo: [
              `Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${target.foundationModelId}`,
            ],
          },
        ],
        true,
      );
    }
  }

  /**
   * Records why a cdk-nag rule does not apply to this function (its CfnFunction), e.g. why a function
   * that is never invoked asynchronously has no dead-letter queue. One reason per rule, specific to
   * the function's trigger.
   */
  suppressFunctionRule(id: string, reason: string): void {
    NagSuppressions.addResourceSuppressions(this.fn, [{ id, reason }]);
  }

  /**
   * Records why this function's policy holds a `Resource::*` (cdk-nag AwsSolutions-IAM5). Only for
   * actions that IAM accepts on `*` alone; say which in `reason`.
   */
  suppressWildcardResource(reason: string): void {
    NagSuppressions.addResourceSuppressions(
      this.role,
      [{ id: 'AwsSolutions-IAM5', reason, appliesTo: ['Resource::*'] }],
      true,
    );
  }
}
