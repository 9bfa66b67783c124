import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../platform/config.ts';

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

interface ConsumedCapacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
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

function createDocumentClient(): DynamoDBDocumentClient {
  const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
  const base = new DynamoDBClient({
    region: AWS_REGION,
    ...(DYNAMODB_ENDPOINT
      ? { endpoint: DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  // Every call asks for its consumed capacity so that the bench (and the logs) can show what a
  // request really costs; the meter is a no-op outside `metered`.
  base.middlewareStack.add(
    (next, context) => async (args) => {
      const meter = meterStore.getStore();
      const input = args.input as Record<string, unknown>;
      if (meter && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      if (meter) {
        const operation = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
        meter.roundTrips += 1;
        meter.operations.push(operation);
        const output = result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
        const consumed = output.ConsumedCapacity;
        for (const c of Array.isArray(consumed) ? consumed : [consumed]) addCapacity(meter, operation, c);
      }
      return result;
    },
    { step: 'initialize', name: 'dynamoMeter' },
  );
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
}

let documentClient: DynamoDBDocumentClient | undefined;

/** The shared document client, created on first use so that config is read after env is set. */
export function dynamo(): DynamoDBDocumentClient {
  documentClient ??= createDocumentClient();
  return documentClient;
}

export function tableName(): string {
  return config().TABLE_NAME;
}
