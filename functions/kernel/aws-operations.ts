import { AsyncLocalStorage } from 'node:async_hooks';
import type { MiddlewareStack } from '@smithy/types';

/**
 * One AWS operation as IAM authorizes it: the IAM action (`dynamodb:PutItem`, not the API call
 * `TransactWriteItems` that carried it) and the resource it names, in the form of an ARN's resource
 * part (`table/NAME`, `table/NAME/index/INDEX`), attributed to the function that performed it.
 */
export interface AwsOperation {
  /** The route's operationId for an HTTP function; the entry path for a worker or a consumer. */
  function: string;
  /** The IAM service prefix: `dynamodb`, `sqs`, `ses`, `bedrock`, `s3`. */
  service: string;
  /** The IAM action, service prefix included. */
  action: string;
  /** The ARN's resource part, or `*` when the call names none. */
  resource: string;
  /** For a DynamoDB PutItem: the ElectroDB entity of the item (`__edb_e__`), to tell local stand-ins apart. */
  entity?: string | undefined;
}

const functionScope = new AsyncLocalStorage<string>();

/**
 * Runs `work` as the function `name`: the AWS operations it performs are attributed to that function.
 * Needed where several functions share a process (the local stack, the tests); inside Lambda each
 * process is one function and `AWS_LAMBDA_FUNCTION_NAME` names it.
 */
export function runAsFunction<T>(name: string, work: () => T): T {
  return functionScope.run(name, work);
}

/** The function the current code runs as, if any. */
export function currentFunction(): string | undefined {
  return functionScope.getStore() ?? process.env.AWS_LAMBDA_FUNCTION_NAME;
}

/** The IAM prefix of an SDK client, from its `clientName` (`DynamoDBClient` → `dynamodb`). */
const SERVICE_OF_CLIENT: Record<string, string> = {
  DynamoDBClient: 'dynamodb',
  SQSClient: 'sqs',
  SESv2Client: 'ses',
  BedrockRuntimeClient: 'bedrock',
  S3Client: 's3',
  SchedulerClient: 'scheduler',
  SecretsManagerClient: 'secretsmanager',
};

type Input = Record<string, unknown>;
/** An operation of one call; `service` only where IAM authorizes it under another service (iam:PassRole). */
type Authorized = Pick<AwsOperation, 'action' | 'resource' | 'entity'> & { service?: string };

/** The resource part of an ARN (`arn:aws:iam::123:role/NAME` → `role/NAME`). */
const arnResource = (arn: unknown): string =>
  String(arn ?? '*')
    .split(':')
    .slice(5)
    .join(':') || '*';

const tableResource = (table: unknown, index?: unknown): string =>
  `table/${String(table)}${typeof index === 'string' ? `/index/${index}` : ''}`;

/** The item-level action IAM checks for each member of a transaction (TransactWriteItems has no action of its own). */
const TRANSACT_ACTION: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

function entityOf(item: unknown): string | undefined {
  const marker = (item as Input | undefined)?.__edb_e__;
  if (typeof marker === 'string') return marker;
  const s = (marker as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
}

/** What IAM authorizes for one DynamoDB call, read from its input (document or marshalled form). */
function dynamoOperations(apiName: string, input: Input): Authorized[] {
  switch (apiName) {
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Record<string, Input>[]).flatMap((member) =>
        Object.entries(member).map(([kind, request]) => ({
          action: TRANSACT_ACTION[kind] ?? `dynamodb:${kind}`,
          resource: tableResource(request.TableName),
          ...(kind === 'Put' && entityOf(request.Item) ? { entity: entityOf(request.Item) } : {}),
        })),
      );
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys((input.RequestItems ?? {}) as Input).map((table) => ({
        action: `dynamodb:${apiName}`,
        resource: tableResource(table),
      }));
    default: {
      const entity = apiName === 'PutItem' ? entityOf(input.Item) : undefined;
      return [
        {
          action: `dynamodb:${apiName}`,
          resource: input.TableName === undefined ? '*' : tableResource(input.TableName, input.IndexName),
          ...(entity ? { entity } : {}),
        },
      ];
    }
  }
}

/** What IAM authorizes for one call of another service: its action on the resource the input names. */
function otherOperations(service: string, apiName: string, input: Input): Authorized[] {
  switch (service) {
    case 'sqs':
      // The queue's name is the last segment of its URL (https://sqs.REGION.amazonaws.com/ACCOUNT/NAME).
      return [{ action: `sqs:${apiName}`, resource: String(input.QueueUrl ?? '*').replace(/^.*\//, '') }];
    case 'ses':
      return [{ action: `ses:${apiName}`, resource: `identity/${String(input.FromEmailAddress ?? '*')}` }];
    case 'bedrock':
      // Converse is authorized as InvokeModel (ConverseStream as InvokeModelWithResponseStream).
      return [
        {
          action: apiName === 'Converse' ? 'bedrock:InvokeModel' : `bedrock:${apiName}`,
          resource: `foundation-model/${String(input.modelId ?? '*')}`,
        },
      ];
    case 's3':
      return [
        { action: `s3:${apiName}`, resource: `${String(input.Bucket ?? '*')}/${String(input.Key ?? '*')}` },
      ];
    case 'scheduler': {
      // A schedule is named within its group; one with a target role also passes that role to Scheduler.
      const schedule = {
        action: `scheduler:${apiName}`,
        resource: `schedule/${String(input.GroupName ?? 'default')}/${String(input.Name ?? '*')}`,
      };
      const roleArn = (input.Target as Input | undefined)?.RoleArn;
      return roleArn === undefined
        ? [schedule]
        : [schedule, { service: 'iam', action: 'iam:PassRole', resource: arnResource(roleArn) }];
    }
    default:
      return [{ action: `${service}:${apiName}`, resource: '*' }];
  }
}

/** The IAM actions and resources of one SDK call. */
export function authorizedOperations(service: string, apiName: string, input: Input): Authorized[] {
  return service === 'dynamodb' ? dynamoOperations(apiName, input) : otherOperations(service, apiName, input);
}

/**
 * Adds to `client` a middleware that reports every call made inside a function (`runAsFunction`, or
 * in Lambda) to `record`, once per IAM action and resource it needs, before it is sent: a call that
 * fails still needed its grant. Works with any AWS SDK v3 client (DynamoDB, its document client, SQS,
 * SES, Bedrock, S3), since all share the same middleware stack and command context.
 */
export function recordAwsOperations<I extends object, O extends object>(
  client: { middlewareStack: MiddlewareStack<I, O> },
  record: (operation: AwsOperation) => void,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const fn = currentFunction();
      if (fn !== undefined) {
        const service =
          SERVICE_OF_CLIENT[context.clientName ?? ''] ?? String(context.clientName).toLowerCase();
        const apiName = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        for (const operation of authorizedOperations(service, apiName, args.input as Input)) {
          record({ function: fn, service, ...operation });
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordAwsOperations' },
  );
}
