/**
 * What a unit of work costs in DynamoDB, read off the service's own client (functions/data/client.ts
 * `dynamo()`, which every data module and local adapter sends through): while a recording runs, each
 * call asks for its consumed capacity, and each attempt sent (inside the SDK's retries, as on the
 * wire) is noted with its request, its answer or error, and the sequential round it went out in.
 * DynamoDB Local reports the capacity; dynamo-costs.ts turns the calls into what AWS bills.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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

/** Read and write units of one answer: split when DynamoDB splits them, else by the operation. */
export function unitsOf(operation: string, output: Record<string, unknown>): { read: number; write: number } {
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
