/**
 * `node scripts/bench/pipeline-cpu.ts [--batches 15 --batch 200 --rows getProperty,…]`: the
 * in-process CPU of each hot path's whole pipeline (middy chain, cached key, rate limit, validation,
 * handler, ElectroDB, the AWS SDK), per request, as Lambda runs it: the API Gateway event handed to the
 * handler, no HTTP server. DynamoDB's answers are replayed from memory (each row's calls are recorded
 * once against DynamoDB Local, then answered by a request handler on the SDK client that returns the
 * recorded bytes), so no socket, no DynamoDB Local and little of the neighbours' load is in the
 * figure: it moves only with our code and the SDK's. The equal-work row is the same SDK client sending
 * the floor's GetItem and the rate-limit UpdateItem together, replayed the same way: the part of a
 * GET's CPU no code of ours can remove. Figures: best and median batch of `--batches` batches of
 * `--batch` sequential requests (process.cpuUsage, user + system).
 */
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoLocal } from '../local/dynamo-local.ts';
import { BENCH_TABLE, localHandlerEnv } from './env.ts';
import { median, round } from './stats.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '15' },
    batch: { type: 'string', default: '200' },
    /** Only these rows, by operationId (comma-separated). */
    rows: { type: 'string' },
  },
});
const batches = Number(args.batches);
const batchSize = Number(args.batch);

interface RecordedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface HttpRequestLike {
  headers: Record<string, string>;
}

interface RequestHandlerLike {
  handle: (request: HttpRequestLike, options?: unknown) => Promise<{ response: unknown }>;
}

/**
 * Wraps the SDK client's request handler: `record` passes calls on and keeps each answer per
 * operation in call order; `replay` answers the i-th call of an operation with the i-th recorded
 * answer (cycling), without touching the network.
 */
function replayingHandler(real: RequestHandlerLike, HttpResponse: new (o: object) => unknown) {
  let mode: 'pass' | 'record' | 'replay' = 'pass';
  let recorded = new Map<string, RecordedResponse[]>();
  const served = new Map<string, number>();
  const target = (request: HttpRequestLike) => request.headers['x-amz-target'] ?? 'unknown';
  const handler = {
    ...real,
    handle: async (request: HttpRequestLike, options?: unknown) => {
      if (mode === 'replay') {
        const op = target(request);
        const answers = recorded.get(op);
        // A call the recorded request did not make (a cache refreshed after its minute) goes through.
        if (!answers?.length) return real.handle(request, options);
        const i = served.get(op) ?? 0;
        served.set(op, i + 1);
        const r = answers[i % answers.length] as RecordedResponse;
        return {
          response: new HttpResponse({
            statusCode: r.statusCode,
            headers: { ...r.headers },
            body: Readable.from([r.body]),
          }),
        };
      }
      const { response } = (await real.handle(request, options)) as {
        response: { statusCode: number; headers: Record<string, string>; body: AsyncIterable<Buffer> };
      };
      if (mode === 'pass') return { response };
      const chunks: Buffer[] = [];
      for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
      const body = Buffer.concat(chunks);
      const op = target(request);
      recorded.set(op, [
        ...(recorded.get(op) ?? []),
        { statusCode: response.statusCode, headers: response.headers, body },
      ]);
      return {
        response: new HttpResponse({
          statusCode: response.statusCode,
          headers: response.headers,
          body: Readable.from([body]),
        }),
      };
    },
  };
  return {
    handler,
    /** Records from now on; returns the recording (filled as calls come). */
    record: () => {
      mode = 'record';
      recorded = new Map();
      return recorded;
    },
    /** Replays `recording` from now on. */
    replay: (recording: Map<string, RecordedResponse[]>) => {
      mode = 'replay';
      recorded = recording;
      served.clear();
    },
    pass: () => {
      mode = 'pass';
    },
  };
}

const dynamoLocal = await startDynamoLocal();
try {
  await ensureTable(dynamoLocal.endpoint, BENCH_TABLE);
  const { HOT_PATH_SERVER_ENV, hotPathCases, seedHotPathLeads, seedHotPathSite } = await import(
    './hot-path.ts'
  );
  Object.assign(process.env, localHandlerEnv(dynamoLocal.endpoint), HOT_PATH_SERVER_ENV, {
    LOG_LEVEL: 'ERROR',
  });
  (await import('../local/adapters/index.ts')).bindLocalAdapters();
  const { createFixture } = await import('./dynamo-costs.ts');
  const { dynamo, tableName } = await import('../../functions/data/client.ts');
  const { HttpResponse } = await import('@smithy/core/protocols');
  const { toEvent, mountRoutes } = await import('../local/server.ts');
  const { lambdaContext } = await import('../local/lambda-events.ts');

  process.stderr.write('Seeding the bench Tenant…\n');
  const fixture = await createFixture();
  await seedHotPathLeads(fixture, 30);
  const siteKey = await seedHotPathSite(fixture);

  const client = dynamo();
  const config = client.config as unknown as { requestHandler: RequestHandlerLike };
  const replay = replayingHandler(config.requestHandler, HttpResponse as never);
  config.requestHandler = replay.handler;

  const mounted = mountRoutes();
  /** The API Gateway event of a case's request, built as the local server builds it. */
  async function invoker(c: ReturnType<typeof hotPathCases>[number]) {
    const m = mounted.find((r) => r.route.operationId === c.operationId);
    if (!m) throw new Error(`no route ${c.operationId}`);
    const url = new URL(c.path, 'http://127.0.0.1');
    if (!m.pattern.test(url.pathname)) throw new Error(`${c.path} does not match ${m.route.path}`);
    const handler = await m.load();
    const body = Buffer.from(c.request.body ?? '');
    const headers = Object.fromEntries(
      Object.entries(c.request.headers).map(([k, v]) => [k.toLowerCase(), v]),
    );
    return async () => {
      const req = { headers, socket: { remoteAddress: '127.0.0.1' }, httpVersion: '1.1' } as never;
      const event = toEvent(req, url, body, m);
      const response = await handler(event, lambdaContext(c.operationId, event.requestContext.requestId));
      if (response.statusCode < 200 || response.statusCode >= 300)
        throw new Error(`${c.label} answered ${response.statusCode} ${response.body ?? ''}`);
    };
  }

  interface Row {
    label: string;
    once: () => Promise<unknown>;
    recording: Map<string, RecordedResponse[]>;
    perRequest: number[];
  }
  const rows: Row[] = [];
  /** Warms a row up against DynamoDB Local (the key gets cached), then records one request's answers. */
  async function prepare(label: string, once: () => Promise<unknown>) {
    replay.pass();
    for (let i = 0; i < 20; i++) await once();
    const recording = replay.record();
    await once();
    replay.replay(recording);
    for (let i = 0; i < 300; i++) await once();
    rows.push({ label, once, recording, perRequest: [] });
  }
  const counterKey = { pk: 'bench#floor-rate-limit', sk: 'window' };
  await prepare('equal-work floor: SDK GetItem ‖ rate-limit UpdateItem', () =>
    Promise.all([
      client.send(new GetCommand({ TableName: tableName(), Key: fixture.propertyKey })),
      client.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: counterKey,
          UpdateExpression: 'ADD #tenantCount :one, #keyCount :one SET #ttl = if_not_exists(#ttl, :ttl)',
          ExpressionAttributeNames: { '#tenantCount': 'tenantCount', '#keyCount': 'key_k', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':ttl': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    ]),
  );
  const only = args.rows?.split(',');
  for (const c of hotPathCases(fixture, siteKey).filter((c) => !only || only.includes(c.operationId)))
    await prepare(c.label, await invoker(c));

  // Batches go round the rows, so that a burst of the neighbours' load hits every row alike.
  for (let b = 0; b < batches; b++) {
    for (const row of rows) {
      // One request against DynamoDB Local first: what expired since the last batch (the key cache,
      // the site catalogue's Areas) is refreshed there, not answered with another call's bytes.
      replay.pass();
      await row.once();
      replay.replay(row.recording);
      const before = process.cpuUsage();
      try {
        for (let i = 0; i < batchSize; i++) await row.once();
      } catch (error) {
        // A replayed answer that no longer fits (a cache refreshed mid-batch): the batch is not counted.
        process.stderr.write(`${row.label}: batch ${b + 1} dropped: ${(error as Error).message}\n`);
        continue;
      }
      const used = process.cpuUsage(before);
      row.perRequest.push((used.user + used.system) / batchSize);
    }
  }
  replay.pass();
  process.stdout.write(
    `In-process CPU per request, µs (DynamoDB replayed; ${batches} batches of ${batchSize}, round the rows)\n${''.padEnd(64)}   best   median\n`,
  );
  for (const row of rows) {
    const best = round(Math.min(...row.perRequest), 0);
    const mid = round(median(row.perRequest), 0);
    process.stdout.write(`${row.label.padEnd(64)} ${String(best).padStart(6)} ${String(mid).padStart(8)}\n`);
  }
} finally {
  await dynamoLocal.stop();
}
