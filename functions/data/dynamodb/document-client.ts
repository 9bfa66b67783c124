import { randomUUID } from 'node:crypto';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { type CredentialSource, callAws } from '../../platform/aws/aws-http.ts';
import type { Doc, DocumentCommand, DynamoOperation, WriteRequest } from './commands.ts';

/** One call as middleware sees it: the operation and its input in plain values. */
export interface DocumentCall {
  operation: DynamoOperation;
  input: Record<string, unknown>;
}

export type DocumentMiddleware = (
  call: DocumentCall,
  next: (call: DocumentCall) => Promise<Record<string, unknown>>,
) => Promise<Record<string, unknown>>;

export interface DocumentClientOptions {
  region: string;
  /** Origin of DynamoDB: the regional endpoint in AWS, DynamoDB Local's URL locally. */
  endpoint: string;
  credentials: CredentialSource;
  /** See AwsCall.attemptTimeoutMs. */
  attemptTimeoutMs?: number;
}

type AttributeMap = Parameters<typeof unmarshall>[0];

// Same as the service's former `DynamoDBDocumentClient` setting: undefined fields are left out.
const toAttributes = (doc: Doc): AttributeMap =>
  marshall(doc, { removeUndefinedValues: true }) as AttributeMap;
const fromAttributes = (attributes: unknown): Doc => unmarshall(attributes as AttributeMap);

/** Applies `convert` to the named fields of `record` that are present. */
function mapFields(record: unknown, fields: readonly string[], convert: (value: never) => unknown): Doc {
  const copy: Doc = { ...(record as Doc) };
  for (const field of fields) if (copy[field] !== undefined) copy[field] = convert(copy[field] as never);
  return copy;
}

const KEY_FIELDS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;
const marshallFields = (record: unknown) => mapFields(record, KEY_FIELDS, toAttributes);

function mapTables<T>(tables: unknown, convert: (value: never) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [table, value] of Object.entries((tables ?? {}) as Record<string, unknown>))
    out[table] = convert(value as never);
  return out;
}

function marshallWriteRequest(request: WriteRequest): unknown {
  return 'PutRequest' in request
    ? { PutRequest: { Item: toAttributes(request.PutRequest.Item) } }
    : { DeleteRequest: { Key: toAttributes(request.DeleteRequest.Key) } };
}

function unmarshallWriteRequest(request: {
  PutRequest?: { Item: unknown };
  DeleteRequest?: { Key: unknown };
}) {
  return request.PutRequest
    ? { PutRequest: { Item: fromAttributes(request.PutRequest.Item) } }
    : { DeleteRequest: { Key: fromAttributes(request.DeleteRequest?.Key) } };
}

/** Plain values → DynamoDB's attribute-value JSON, per operation. */
function marshallInput(operation: DynamoOperation, input: Record<string, unknown>): Record<string, unknown> {
  switch (operation) {
    case 'BatchGetItem':
      return {
        ...input,
        RequestItems: mapTables(input.RequestItems, (t: { Keys: Doc[] }) => ({
          ...t,
          Keys: t.Keys.map(toAttributes),
        })),
      };
    case 'BatchWriteItem':
      return {
        ...input,
        RequestItems: mapTables(input.RequestItems, (r: WriteRequest[]) => r.map(marshallWriteRequest)),
      };
    case 'TransactGetItems':
    case 'TransactWriteItems':
      return {
        ...input,
        TransactItems: (input.TransactItems as Record<string, unknown>[]).map((item) =>
          mapTables(item, marshallFields),
        ),
        ...(operation === 'TransactWriteItems'
          ? { ClientRequestToken: input.ClientRequestToken ?? randomUUID() }
          : {}),
      };
    default:
      return marshallFields(input);
  }
}

/** DynamoDB's attribute-value JSON → plain values, per operation. */
function unmarshallOutput(
  operation: DynamoOperation,
  output: Record<string, unknown>,
): Record<string, unknown> {
  switch (operation) {
    case 'Query':
    case 'Scan':
      return {
        ...mapFields(output, ['LastEvaluatedKey'], fromAttributes),
        ...(output.Items ? { Items: (output.Items as unknown[]).map(fromAttributes) } : {}),
      };
    case 'BatchGetItem':
      return {
        ...output,
        Responses: mapTables(output.Responses, (items: unknown[]) => items.map(fromAttributes)),
        UnprocessedKeys: mapTables(output.UnprocessedKeys, (t: { Keys: unknown[] }) => ({
          ...t,
          Keys: t.Keys.map(fromAttributes),
        })),
      };
    case 'BatchWriteItem':
      return {
        ...output,
        UnprocessedItems: mapTables(
          output.UnprocessedItems,
          (r: Parameters<typeof unmarshallWriteRequest>[0][]) => r.map(unmarshallWriteRequest),
        ),
      };
    case 'TransactGetItems':
      return {
        ...output,
        ...(output.Responses
          ? { Responses: (output.Responses as unknown[]).map((r) => mapFields(r, ['Item'], fromAttributes)) }
          : {}),
      };
    default:
      return mapFields(output, ['Item', 'Attributes'], fromAttributes);
  }
}

/**
 * `@aws-sdk/lib-dynamodb` command class names, for the commands ElectroDB builds when it runs
 * unbundled (tests, the local stack, the admin CLI): node_modules code keeps its class names. Lambda
 * bundles are minified, which is why they alias lib-dynamodb to our commands (lib/bundling.ts),
 * whose `operation` field needs no name; test/infra/lambda-bundle.test.ts runs that path.
 */
const OPERATION_OF_SDK_COMMAND: Record<string, DynamoOperation> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  TransactGetCommand: 'TransactGetItems',
  TransactWriteCommand: 'TransactWriteItems',
};

/** A command of ours, or one of `@aws-sdk/lib-dynamodb`'s (same names, same input shape). */
type AnyCommand = { input: object; operation?: DynamoOperation };

function operationOf(command: AnyCommand): DynamoOperation {
  const operation = command.operation ?? OPERATION_OF_SDK_COMMAND[command.constructor.name];
  if (!operation) throw new Error(`Unsupported DynamoDB command ${command.constructor.name}`);
  return operation;
}

/**
 * DynamoDB in plain JavaScript values over its JSON API: marshalling, signing, retries, nothing
 * else. Binary attributes (B, BS) are not supported: the service stores none. It speaks the `@aws-sdk/lib-dynamodb` command vocabulary (so ElectroDB drives it like the SDK
 * client) at a fraction of the SDK's bundle size and load time, which every request pays.
 */
export class DocumentClient {
  readonly #options: DocumentClientOptions;
  readonly #middleware: DocumentMiddleware[] = [];

  constructor(options: DocumentClientOptions) {
    this.#options = options;
  }

  /** Adds a middleware around every call; the first added is the outermost. */
  use(middleware: DocumentMiddleware): void {
    this.#middleware.push(middleware);
  }

  send<Input extends object, Output extends object>(
    command: DocumentCommand<Input, Output>,
    options?: { abortSignal?: AbortSignal },
  ): Promise<Output>;
  send(command: AnyCommand, options?: { abortSignal?: AbortSignal }): Promise<Record<string, unknown>>;
  async send(
    command: AnyCommand,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    const call: DocumentCall = {
      operation: operationOf(command),
      input: command.input as Record<string, unknown>,
    };
    const run = (index: number, current: DocumentCall): Promise<Record<string, unknown>> => {
      const middleware = this.#middleware[index];
      return middleware
        ? middleware(current, (next) => run(index + 1, next))
        : this.#call(current, options.abortSignal);
    };
    return run(0, call);
  }

  async #call({ operation, input }: DocumentCall, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const output = await callAws({
      service: 'dynamodb',
      region: this.#options.region,
      endpoint: this.#options.endpoint,
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
      },
      body: JSON.stringify(marshallInput(operation, input)),
      credentials: this.#options.credentials,
      ...(this.#options.attemptTimeoutMs ? { attemptTimeoutMs: this.#options.attemptTimeoutMs } : {}),
      ...(signal ? { signal } : {}),
    });
    return unmarshallOutput(operation, output);
  }
}
