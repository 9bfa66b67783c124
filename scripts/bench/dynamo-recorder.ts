import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';

/**
 * What the costs sections count, seen on the wire between the handlers and DynamoDB Local rather
 * than inside one particular client: the figures stay the same whichever DynamoDB client the
 * service uses (its own, or the AWS SDK's).
 *
 * The recorder is a loopback HTTP proxy in front of DynamoDB Local. Each request's operation comes
 * from its `X-Amz-Target`; every call that can report consumed capacity is made to
 * (`ReturnConsumedCapacity: TOTAL`, unless the caller asked for more), which DynamoDB Local answers
 * without checking the signature; the answer goes back to the caller byte for byte.
 */

export interface Consumed {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** One DynamoDB call: its operation, the request, and the parsed answer. */
export interface RecordedCall {
  operation: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  status: number;
  /** The sequential round it went out in (1 the first): calls sent together share one. */
  round: number;
}

/** A unit of work's DynamoDB calls: filled while it is the recorder's current recording. */
export interface Recording {
  calls: RecordedCall[];
  /** Calls that started while no other was in flight: the sequential round trips. */
  rounds: number;
  inFlight: number;
}

const CAPACITY_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);

/** `DynamoDB_20120810.GetItem` → `GetItem`. */
export function operationOf(target: string | undefined): string {
  return target?.split('.').at(-1) ?? 'unknown';
}

/** The request body with consumed capacity asked for, when the operation can report it. */
export function withConsumedCapacity(
  operation: string,
  input: Record<string, unknown>,
): Record<string, unknown> {
  if (!CAPACITY_OPERATIONS.has(operation) || input.ReturnConsumedCapacity !== undefined) return input;
  return { ...input, ReturnConsumedCapacity: 'TOTAL' };
}

/** Read and write units of one answer: split when DynamoDB splits them, else by the operation. */
export function unitsOf(operation: string, output: Record<string, unknown>): { read: number; write: number } {
  const consumed = output.ConsumedCapacity as Consumed | Consumed[] | undefined;
  let read = 0;
  let write = 0;
  for (const c of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      read += c.ReadCapacityUnits ?? 0;
      write += c.WriteCapacityUnits ?? 0;
    } else if (/^(Get|BatchGet|Query|Scan|TransactGet)/.test(operation)) {
      read += c.CapacityUnits ?? 0;
    } else {
      write += c.CapacityUnits ?? 0;
    }
  }
  return { read, write };
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => done(Buffer.concat(chunks)));
    stream.on('error', fail);
  });
}

function parse(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sequential rounds after the last round that holds a call `marks` picks (say, the rate-limit
 * write); every round when none does.
 */
export function roundsAfter(
  recording: Pick<Recording, 'calls' | 'rounds'>,
  marks: (call: RecordedCall) => boolean,
): number {
  return recording.rounds - Math.max(0, ...recording.calls.filter(marks).map((c) => c.round));
}

export interface DynamoRecorder {
  /** The endpoint to give the code under measurement. */
  endpoint: string;
  /** Runs `work` as the current recording (one at a time: the bench measures sequentially). */
  record<T>(work: () => Promise<T>): Promise<{ result: T; recording: Recording }>;
  stop(): Promise<void>;
}

export async function startDynamoRecorder(upstream: string): Promise<DynamoRecorder> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  let current: Recording | undefined;

  const server: Server = createServer(async (req, res) => {
    try {
      const operation = operationOf(req.headers['x-amz-target'] as string | undefined);
      const raw = await readBody(req);
      const parsed = parse(raw);
      // Anything that is not a JSON object goes through untouched (and DynamoDB Local judges it).
      const input = parsed ? withConsumedCapacity(operation, parsed) : {};
      const body = parsed && input !== parsed ? Buffer.from(JSON.stringify(input)) : raw;
      const recording = current;
      if (recording) {
        if (recording.inFlight === 0) recording.rounds += 1;
        recording.inFlight += 1;
      }
      const round = recording?.rounds ?? 0;
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
      const upstreamResponse = await new Promise<IncomingMessage>((done, fail) => {
        const forward = httpRequest(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
          done,
        );
        forward.on('error', fail);
        forward.end(body);
      });
      const answer = await readBody(upstreamResponse);
      if (recording) {
        recording.inFlight -= 1;
        recording.calls.push({
          operation,
          input,
          output: parse(answer) ?? {},
          status: upstreamResponse.statusCode ?? 0,
          round,
        });
      }
      res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
      res.end(answer);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bench recorder: ${String(error)}`);
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('recorder: no port');

  return {
    endpoint: `http://127.0.0.1:${address.port}`,
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
    stop: () =>
      new Promise<void>((done) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
