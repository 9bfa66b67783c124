import { AsyncLocalStorage } from 'node:async_hooks';
import { defaultCredentials, localCredentials } from '../platform/aws/aws-http.ts';
import { config } from '../platform/config.ts';
import type { ConsumedCapacity } from './dynamodb/commands.ts';
import { DocumentClient } from './dynamodb/document-client.ts';

/** Round trips and consumed capacity of one unit of work (a request, a bench operation). */
export interface DynamoMeter {
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  operations: string[];
}

const meterStore = new AsyncLocalStorage<DynamoMeter>();

/** Runs `work` with a fresh meter and returns what it cost next to its result. */
export async function metered<T>(work: () => Promise<T>): Promise<{ result: T; meter: DynamoMeter }> {
  const meter: DynamoMeter = { roundTrips: 0, readUnits: 0, writeUnits: 0, operations: [] };
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

function createDocumentClient(): DocumentClient {
  const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
  const client = new DocumentClient({
    region: AWS_REGION,
    endpoint: DYNAMODB_ENDPOINT ?? `https://dynamodb.${AWS_REGION}.amazonaws.com`,
    credentials: DYNAMODB_ENDPOINT ? localCredentials : defaultCredentials(),
    // DynamoDB Local on a busy laptop or CI machine can pause for seconds (JVM garbage collection);
    // retrying a write it is still running would turn it into a conditional failure.
    ...(DYNAMODB_ENDPOINT ? { attemptTimeoutMs: 30_000 } : {}),
  });
  // Every call asks for its consumed capacity so that the bench (and the logs) can show what a
  // request really costs; the meter is a no-op outside `metered`.
  client.use(async (call, next) => {
    const meter = meterStore.getStore();
    if (!meter) return next(call);
    const input =
      call.input.ReturnConsumedCapacity === undefined
        ? { ...call.input, ReturnConsumedCapacity: 'TOTAL' }
        : call.input;
    const output = await next({ ...call, input });
    meter.roundTrips += 1;
    meter.operations.push(call.operation);
    const consumed = output.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined;
    for (const c of Array.isArray(consumed) ? consumed : [consumed]) addCapacity(meter, call.operation, c);
    return output;
  });
  return client;
}

let documentClient: DocumentClient | undefined;

/** The shared document client, created on first use so that config is read after env is set. */
export function dynamo(): DocumentClient {
  documentClient ??= createDocumentClient();
  return documentClient;
}

export function tableName(): string {
  return config().TABLE_NAME;
}
