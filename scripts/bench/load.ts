import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import { tableDefinition } from '../../functions/data/table.ts';
import { CPU_REQUEST } from './child-cpu.ts';
import { localHandlerEnv } from './env.ts';
import { benchDocumentClient } from './sdk.ts';
import { round, summarize } from './stats.ts';

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
}

export interface LoadFigures {
  requests: number;
  /** Completed requests per second over the run. */
  throughput: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Non-2xx answers or connection errors: a run with any is not a valid measurement. */
  failures: number;
}

export interface ApiServer {
  url: string;
  stop: () => Promise<void>;
  /** The child's own process.cpuUsage(), asked over IPC (scripts/bench/child-cpu.ts). */
  cpuUsage: () => Promise<NodeJS.CpuUsage>;
}

/**
 * Starts scripts/bench/api-server.ts with the warm-Lambda environment (plus `env`) and waits for its
 * URL.
 */
export function startServerProcess(
  endpoint: string,
  nodeOptions: string[] = [],
  env: Record<string, string> = {},
): Promise<ApiServer> {
  return startChildServer(
    resolve(import.meta.dirname, 'api-server.ts'),
    { ...localHandlerEnv(endpoint), ...env },
    nodeOptions,
  );
}

/**
 * Starts a bench server script in its own Node process (so that autocannon's CPU use in the
 * parent does not share its event loop) and waits for the URL it prints as its first stdout line.
 * `nodeOptions` go before the script (`--cpu-prof`, …).
 */
export function startChildServer(
  script: string,
  env: Record<string, string>,
  nodeOptions: string[] = [],
): Promise<ApiServer> {
  const child: ChildProcess = spawn(process.execPath, [...nodeOptions, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  const cpuUsage = () =>
    new Promise<NodeJS.CpuUsage>((answered, fail) => {
      const onMessage = (message: unknown) => {
        const usage = (message as { cpuUsage?: NodeJS.CpuUsage } | null)?.cpuUsage;
        if (!usage) return;
        child.off('message', onMessage);
        answered(usage);
      };
      child.on('message', onMessage);
      if (!child.send(CPU_REQUEST)) fail(new Error('The server process has no IPC channel'));
    });
  return new Promise((resolveStart, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${script} did not start within 30 s`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited during start-up (code ${code})`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const line = buffer.split('\n')[0];
      if (line === undefined || !buffer.includes('\n')) return;
      clearTimeout(timer);
      try {
        resolveStart({ url: (JSON.parse(line) as { url: string }).url, stop, cpuUsage });
      } catch (error) {
        void stop();
        reject(error);
      }
    });
  });
}

/** What a load request sends besides its URL. */
export interface LoadRequest {
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/**
 * The server process's CPU per request (µs, user + system) over `count` sequential requests: one
 * at a time, so no request's wait overlaps another's work, and the network and DynamoDB wait, which
 * cost the server no CPU, are left out. Each answer must be a 2xx.
 */
export async function cpuPerRequest(
  server: ApiServer,
  url: string,
  request: LoadRequest,
  count: number,
): Promise<number> {
  const send = async () => {
    const res = await fetch(url, {
      method: request.method ?? 'GET',
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    await res.arrayBuffer();
    if (res.status < 200 || res.status >= 300) throw new Error(`${url} answered ${res.status}`);
  };
  for (let i = 0; i < 5; i++) await send();
  const before = await server.cpuUsage();
  for (let i = 0; i < count; i++) await send();
  const after = await server.cpuUsage();
  return round((after.user - before.user + after.system - before.system) / count, 0);
}

function figures(latencies: number[], seconds: number, failures: number): LoadFigures {
  const s = summarize(latencies);
  return {
    requests: latencies.length,
    throughput: round(latencies.length / seconds, 0),
    p50: round(s.median, 2),
    p90: round(s.p90, 2),
    p99: round(s.p99, 2),
    max: round(s.max, 2),
    failures,
  };
}

/**
 * Autocannon against one URL. Latencies come from its per-response event (sub-millisecond floats)
 * rather than its histogram, which stores whole milliseconds: too coarse for a 2–5 ms request.
 */
export async function hammer(url: string, request: LoadRequest, options: LoadOptions): Promise<LoadFigures> {
  const { method = 'GET', headers, body } = request;
  const latencies: number[] = [];
  let failures = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    // The callback form returns the instance (the promise form does not), which the listener needs.
    const instance = autocannon(
      {
        url,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        connections: options.connections,
        duration: options.durationSeconds,
      },
      (error: unknown, finished: autocannon.Result) => (error ? fail(error) : done(finished)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else failures += 1;
    });
  });
  return figures(latencies, result.duration, failures + result.errors);
}

/**
 * The floor: a GetItem of the same listing (the cheapest way to read it) with the AWS SDK's
 * DocumentClient, from `connections` concurrent loops
 * for the same duration. No HTTP server, no auth, no rate limit, no ElectroDB.
 * With `rateLimitWrite`, each iteration first does an UpdateItem ADD on one shared item, like the
 * rate-limit counter every request bumps: the DynamoDB part of a request, without the server.
 */
export async function dynamoFloor(
  endpoint: string,
  tableName: string,
  key: Record<string, string>,
  options: LoadOptions & { rateLimitWrite: boolean },
): Promise<LoadFigures> {
  const client = benchDocumentClient(endpoint);
  const counterKey = { [tableDefinition.partitionKey]: 'bench#floor', [tableDefinition.sortKey]: 'window' };
  const once = async () => {
    if (options.rateLimitWrite) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: counterKey,
          UpdateExpression: 'ADD #n :one',
          ExpressionAttributeNames: { '#n': 'count' },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
    }
    return client.send(new GetCommand({ TableName: tableName, Key: key }));
  };
  // A short unmeasured burst: sockets opened and the client's code paths compiled, as for the server.
  for (let i = 0; i < 50; i++) await once();
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + options.durationSeconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        const { Item } = await once();
        if (Item) latencies.push(performance.now() - t);
        else failures += 1;
      } catch {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return figures(latencies, elapsed, failures);
}
