import { AsyncLocalStorage } from 'node:async_hooks';
import { type ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { config } from '../kernel/config.ts';

/** Round trips and consumed capacity of one unit of work (a request, a bench operation). */
export interface DynamoMeter {
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  operations: string[];
  /**
   * Items the transactions wrote (puts, updates, deletes, condition checks): what DynamoDB bills,
   * 2 units each per KB; DynamoDB Local's own booking of a transaction does not follow the items.
   */
  transactItems: number;
  /**
   * Items the Queries and Scans read (their ScannedCount: what is billed, filtered out or not), so
   * a test can tell that a list never read the items it leaves out.
   */
  queryItemsRead: number;
}

const meterStore = new AsyncLocalStorage<DynamoMeter>();

/** Runs `work` with a fresh meter and returns what it cost next to its result. */
export async function metered<T>(work: () => Promise<T>): Promise<{ result: T; meter: DynamoMeter }> {
  const meter: DynamoMeter = {
    roundTrips: 0,
    readUnits: 0,
    writeUnits: 0,
    operations: [],
    transactItems: 0,
    queryItemsRead: 0,
  };
  const result = await meterStore.run(meter, work);
  return { result, meter };
}

function addCapacity(meter: DynamoMeter, operation: string, consumed: ConsumedCapacity | undefined): void {
  if (!consumed) return;
  const total = consumed.CapacityUnits ?? 0;
  const read = consumed.ReadCapacityUnits;
  const write = consumed.WriteCapacityUnits;
  if (read !== undefined || write !== undefined) {
    meter.readUnits += read ?? 0;
    meter.writeUnits += write ?? 0;
  } else if (/^(Get|BatchGet|Query|Scan|TransactGet)/.test(operation)) {
    meter.readUnits += total;
  } else {
    meter.writeUnits += total;
  }
}

/**
 * Books every command sent inside `metered` on its meter: one round trip per command (retries
 * included), its operation name, and the units DynamoDB reports. Only while metered does it ask for
 * the consumed capacity (`ReturnConsumedCapacity: TOTAL`), so ordinary requests send what they say.
 */
function addMeter<I extends object, O extends object>(stack: MiddlewareStack<I, O>): void {
  stack.add(
    (next, context) => async (args) => {
      const meter = meterStore.getStore();
      if (!meter) return next(args);
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const input = args.input as { ReturnConsumedCapacity?: string; TransactItems?: unknown[] };
      const output = await next(
        input.ReturnConsumedCapacity === undefined
          ? { ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } }
          : args,
      );
      meter.roundTrips += 1;
      meter.operations.push(operation);
      if (operation === 'TransactWriteItems') meter.transactItems += input.TransactItems?.length ?? 0;
      if (operation === 'Query' || operation === 'Scan') {
        meter.queryItemsRead += (output.output as { ScannedCount?: number }).ScannedCount ?? 0;
      }
      const consumed = (output.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
        .ConsumedCapacity;
      for (const c of Array.isArray(consumed) ? consumed : [consumed]) addCapacity(meter, operation, c);
      return output;
    },
    {
      step: 'initialize',
      name: 'dynamoMeter',
    },
  );
}

function createDocumentClient(): DynamoDBDocumentClient {
  const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
  const local = DYNAMODB_ENDPOINT !== undefined;
  const client = new DynamoDBClient({
    region: AWS_REGION,
    retryMode: 'standard',
    ...(local
      ? {
          endpoint: DYNAMODB_ENDPOINT,
          // DynamoDB Local checks no signature; static credentials keep the SDK's provider chain
          // (environment, files, instance metadata) out of the local stack and the tests.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          // DynamoDB Local on a busy laptop or CI machine can pause for seconds (JVM garbage
          // collection); retrying a write it is still running would turn it into a conditional failure.
          // Past 30 s a request has failed (the SDK retries it): without `throwOnRequestTimeout` the
          // SDK only warns and waits for ever, and a local worker hung on one such call (the soak).
          requestHandler: { requestTimeout: 30_000, throwOnRequestTimeout: true },
        }
      : {}),
  });
  // The SDK's logger middleware writes to the client's `logger`, which is never set here (the SDK's
  // no-op logger), yet it runs every input and output through the operation schema's sensitive-data
  // filter to build that log entry: about 4% of a cached GET's CPU, for nothing. Nothing
  // else reads what it computes; the metering and operation recording are middlewares of their own.
  client.middlewareStack.remove('loggerMiddleware');
  // Same as ElectroDB's examples: undefined fields are left out of the item rather than refused.
  const documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  addMeter(documentClient.middlewareStack);
  return documentClient;
}

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * The container's one DynamoDB document client (AWS SDK v3, standard retry mode), created on first
 * use so that config is read after the environment is set.
 */
export function dynamo(): DynamoDBDocumentClient {
  documentClient ??= createDocumentClient();
  return documentClient;
}

/** The service's table (`TABLE_NAME`). */
export function tableName(): string {
  return config().TABLE_NAME;
}
