/**
 * What a unit of work costs in DynamoDB, read off the service's own client (`dynamo()`, which every
 * data module and local adapter sends through): while a recording runs, each call asks for its
 * consumed capacity, and each attempt sent (inside the SDK's retries, as on the wire) is noted with
 * its answer and the sequential round it went out in; `costOf` turns them into what AWS bills.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableDefinition } from '../../functions/data/table.ts';

export interface RecordedCall {
  operation: string;
  input: Record<string, unknown>;
  /** The answer, or `{ __type }` for an error. */
  output: Record<string, unknown>;
  status: number;
  /** The sequential round it went out in (1 the first): calls sent together share one. */
  round: number;
}

export interface Recording {
  calls: RecordedCall[];
  /** Calls that started while no other was in flight: the sequential round trips. */
  rounds: number;
  inFlight: number;
}

export interface DynamoRecorder {
  /** Runs `work` as the current recording (one at a time: the bench measures sequentially). */
  record<T>(work: () => Promise<T>): Promise<{ result: T; recording: Recording }>;
}

const CAPACITY =
  /^((Get|Put|Update|Delete)Item|Query|Scan|(BatchGet|BatchWrite|TransactGet|TransactWrite)Items)$/;

/** The request with consumed capacity asked for, when the operation can report it. */
export function withConsumedCapacity(
  operation: string,
  input: Record<string, unknown>,
): Record<string, unknown> {
  if (!CAPACITY.test(operation) || input.ReturnConsumedCapacity !== undefined) return input;
  return { ...input, ReturnConsumedCapacity: 'TOTAL' };
}

type Consumed = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

type Units = { read: number; write: number };

/** Read and write units of one answer: split when DynamoDB splits them, else by the operation. */
export function unitsOf(operation: string, output: Record<string, unknown>): Units {
  const units = { read: 0, write: 0 };
  for (const c of [output.ConsumedCapacity ?? []].flat() as Consumed[]) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      units.read += c.ReadCapacityUnits ?? 0;
      units.write += c.WriteCapacityUnits ?? 0;
    } else
      units[/^(Get|BatchGet|Query|Scan|TransactGet)/.test(operation) ? 'read' : 'write'] +=
        c.CapacityUnits ?? 0;
  }
  return units;
}

/** Sequential rounds after the last round holding a call `marks` picks (say, the rate-limit write). */
export const roundsAfter = (r: Pick<Recording, 'calls' | 'rounds'>, marks: (c: RecordedCall) => boolean) =>
  r.rounds - Math.max(0, ...r.calls.filter(marks).map((c) => c.round));

/** Entities that stand in for SES (outbox) and SQS (local queue) in the local stack. */
const LOCAL_PORT_ENTITIES = new Set(['outboxEmail', 'localQueueMessage']);

/** The ElectroDB entity a PutItem writes, marshalled or not. */
function entityOfPut(input: { Item?: Record<string, unknown> }): string | undefined {
  const marker = input.Item?.__edb_e__;
  return typeof marker === 'string' ? marker : ((marker as { S?: string } | undefined)?.S ?? undefined);
}

export interface TransactItem {
  Put?: { Item?: Record<string, unknown> };
  Update?: { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> };
}
const INDEX_KEYS = tableDefinition.globalSecondaryIndexes.map((i) => [i.partitionKey, i.sortKey] as const);

/**
 * GSI entries one transaction item writes, read off the request: a Put carrying an index's key
 * adds one entry; an Update naming an index key attribute moves the entry (delete + insert: 2).
 * A heuristic (it cannot know whether a replaced item was in the index before), shown apart.
 */
export function indexWrites(item: TransactItem): number {
  if (item.Put) return INDEX_KEYS.filter(([pk]) => Object.keys(item.Put?.Item ?? {}).includes(pk)).length;
  if (!item.Update) return 0;
  const { ExpressionAttributeNames = {}, UpdateExpression = '' } = item.Update;
  const names = new Set([
    ...Object.values(ExpressionAttributeNames),
    ...(UpdateExpression.match(/\w+/g) ?? []),
  ]);
  return 2 * INDEX_KEYS.filter(([pk, sk]) => names.has(pk) || names.has(sk)).length;
}

/**
 * What AWS bills for one call where DynamoDB Local reports less (docs/bench.md, Cost): the least a
 * read costs, found or not, and a conditional write its condition refused; else as reported.
 */
export function billedUnits({ operation, input, output, status }: RecordedCall): Units {
  const reported = unitsOf(operation, output);
  if (status >= 400) {
    const refused = String(output.__type ?? '').endsWith('ConditionalCheckFailedException');
    return { read: 0, write: refused ? Math.max(1, reported.write) : 0 };
  }
  const least = (consistent: unknown) => (consistent === true ? 1 : 0.5);
  if (operation === 'GetItem' || operation === 'Query' || operation === 'Scan') {
    return { read: Math.max(reported.read, least(input.ConsistentRead)), write: 0 };
  }
  if (operation === 'BatchGetItem') {
    const tables = Object.values(input.RequestItems ?? {}) as {
      Keys?: unknown[];
      ConsistentRead?: unknown;
    }[];
    const floor = tables.reduce((sum, t) => sum + (t.Keys?.length ?? 0) * least(t.ConsistentRead), 0);
    return { read: Math.max(reported.read, floor), write: 0 };
  }
  return reported;
}

/**
 * What one request cost (each figure: docs/bench.md, cost): units as Local reports them and as AWS
 * bills them; puts of the local outbox and queue are SES and SQS calls in AWS, not DynamoDB writes.
 */
export const COST_FIELDS = [
  ...['roundTrips', 'sequentialRoundTrips', 'readUnits', 'writeUnits', 'billedReadUnits'],
  ...['billedWriteUnits', 'transactItems', 'transactIndexWrites', 'queryItemsRead', 'queryItemsReturned'],
  'localPortWrites',
] as const;
type CostField = (typeof COST_FIELDS)[number];
export type RequestCost = Record<CostField, number> & { operations: string[] };

/** Sums a request's calls. */
export function costOf(recording: Pick<Recording, 'calls' | 'rounds'>): RequestCost {
  const cost = Object.fromEntries(COST_FIELDS.map((f) => [f, 0])) as unknown as RequestCost;
  cost.roundTrips = recording.calls.length;
  cost.sequentialRoundTrips = recording.rounds;
  cost.operations = recording.calls.map((c) => c.operation);
  for (const call of recording.calls) {
    const { operation, input, output } = call;
    const units = unitsOf(operation, output);
    const billed = billedUnits(call);
    cost.readUnits += units.read;
    cost.writeUnits += units.write;
    cost.billedReadUnits += billed.read;
    const localPort = operation === 'PutItem' && LOCAL_PORT_ENTITIES.has(entityOfPut(input as never) ?? '');
    if (localPort) cost.localPortWrites += 1;
    else if (operation !== 'TransactWriteItems') cost.billedWriteUnits += billed.write;
    if (operation === 'Query' || operation === 'Scan') {
      cost.queryItemsRead += (output.ScannedCount as number | undefined) ?? 0;
      cost.queryItemsReturned += (output.Count as number | undefined) ?? 0;
    }
    if (operation === 'TransactWriteItems') {
      const items = (input as { TransactItems?: TransactItem[] }).TransactItems ?? [];
      const indexed = items.reduce((sum, item) => sum + indexWrites(item), 0);
      cost.transactItems += items.length;
      cost.transactIndexWrites += indexed;
      cost.billedWriteUnits += 2 * items.length + indexed;
    }
  }
  return cost;
}

/** Installs the recorder on `client`. */
export function startDynamoRecorder(client: Pick<DynamoDBDocumentClient, 'middlewareStack'>): DynamoRecorder {
  let current: Recording | undefined;
  const operationOf = (context: { commandName?: string }) =>
    (context.commandName ?? '').replace(/Command$/, '');
  client.middlewareStack.add(
    (next, context) => (args) =>
      next(
        current ? { ...args, input: withConsumedCapacity(operationOf(context), args.input as never) } : args,
      ),
    { step: 'initialize', name: 'benchCapacity' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const recording = current;
      if (!recording) return next(args);
      if (recording.inFlight++ === 0) recording.rounds += 1;
      const call = {
        operation: operationOf(context),
        input: args.input as Record<string, unknown>,
        round: recording.rounds,
      };
      const note = (output: Record<string, unknown>, status: number) => {
        recording.inFlight -= 1;
        recording.calls.push({ ...call, output, status });
      };
      try {
        const answered = await next(args);
        note(answered.output as Record<string, unknown>, 200);
        return answered;
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        note({ __type: e.name }, e.$metadata?.httpStatusCode ?? 500);
        throw error;
      }
    },
    { step: 'deserialize', priority: 'high', name: 'benchRecorder' },
  );
  return {
    async record(work) {
      if (current) throw new Error('recorder: recordings do not nest');
      const recording: Recording = { calls: [], rounds: 0, inFlight: 0 };
      current = recording;
      try {
        return { result: await work(), recording };
      } finally {
        current = undefined;
      }
    },
  };
}
