/**
 * The service in the bench's process: the events handlers get (API Gateway requests, SQS batches),
 * each route's real handler module, loaded once as a warm Lambda keeps it; the fixture Tenant; and
 * what a request costs in DynamoDB, read off its recorded calls (dynamo-recorder.ts), as DynamoDB
 * Local reports it and as AWS bills it.
 * Every functions/ module that does I/O is imported dynamically: they read their configuration on
 * first use, and main.ts sets it just before; routes.ts and table.ts only declare data.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context, SQSEvent } from 'aws-lambda';
import { tableDefinition } from '../../functions/data/table.ts';
import type { HttpEvent, HttpResponse } from '../../functions/pipeline/http.ts';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';
import { type OperationId, routeFor } from '../../functions/routes.ts';
import { httpEvent, lambdaContext } from '../local/lambda-events.ts';
import {
  type DynamoRecorder,
  type RecordedCall,
  type Recording,
  roundsAfter,
  unitsOf,
} from './dynamo-recorder.ts';
import { median, percentile, round } from './stats.ts';

export interface BenchRequest {
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The page every site request of the bench comes from (its publishable keys allow it). */
export const SITE_PAGE = 'https://www.bench-site.example';

/** A site request as a page makes it: the publishable key and origin in the query, the page's Origin. */
export const siteRequest = (key: string, r: BenchRequest = {}): BenchRequest => ({
  ...r,
  query: { key, origin: SITE_PAGE, ...r.query },
  headers: { origin: SITE_PAGE, ...r.headers },
});

/** The API Gateway event of one request (the local server's builder); an empty key sends no Authorization. */
export function apiEvent(route: RouteDefinition, apiKey: string, r: BenchRequest = {}): HttpEvent {
  const params = r.pathParameters ?? {};
  const headers = Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (r.body !== undefined) headers['content-type'] = 'application/json';
  return httpEvent({
    route,
    rawPath: route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? '')),
    rawQueryString: new URLSearchParams(r.query ?? {}).toString(),
    headers: { host: 'bench.local', 'user-agent': 'bench', ...headers },
    query: r.query ?? {},
    pathParameters: params,
    body: r.body !== undefined ? JSON.stringify(r.body) : undefined,
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
}

/** An SQS event of one message, as the queue's event source mapping hands it to its worker. */
export function sqsEvent(message: unknown, queue: string): SQSEvent {
  const [id, now] = [randomUUID(), String(Date.now())];
  const attributes = { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'bench' };
  const arn = `arn:aws:sqs:us-east-1:000000000000:${queue}`;
  const record = { messageId: id, receiptHandle: id, body: JSON.stringify(message), messageAttributes: {} };
  const source = { md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: arn, awsRegion: 'us-east-1' };
  return {
    Records: [{ ...record, ...source, attributes: { ...attributes, ApproximateFirstReceiveTimestamp: now } }],
  };
}

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
 * What AWS bills for one call where DynamoDB Local reports less: a GetItem, Query or Scan costs at
 * least half a read unit (eventually consistent) or one (strongly), found or not, and a BatchGetItem
 * that much per key; a conditional write its condition refused costs at least one write unit, though
 * Local reports no capacity for it (the call fails). Anything else as reported.
 */
export function billedUnits({ operation, input, output, status }: RecordedCall): {
  read: number;
  write: number;
} {
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

/** What one request cost, read off its recorded DynamoDB calls. */
export interface RequestCost {
  roundTrips: number;
  /** Calls that started while no other was in flight: the latency that adds up. */
  sequentialRoundTrips: number;
  operations: string[];
  /** As DynamoDB Local reports them (2 WCU for a small transaction, whatever its items). */
  readUnits: number;
  writeUnits: number;
  /** TransactWriteItems' items, and the GSI entries they write ({@link indexWrites}). */
  transactItems: number;
  transactIndexWrites: number;
  /** Items the Queries and Scans read (ScannedCount: what is billed) and kept after filters (Count). */
  queryItemsRead: number;
  queryItemsReturned: number;
  /** Puts of the local outbox and local queue: SES and SQS calls in AWS, not DynamoDB writes. */
  localPortWrites: number;
  /** As AWS bills them ({@link billedUnits}; a transaction item 2 WCU, and its index entries): priced. */
  billedReadUnits: number;
  billedWriteUnits: number;
}
const COST_FIELDS = [
  ...['roundTrips', 'sequentialRoundTrips', 'readUnits', 'writeUnits', 'transactItems'],
  ...['transactIndexWrites', 'queryItemsRead', 'queryItemsReturned', 'localPortWrites'],
  ...['billedReadUnits', 'billedWriteUnits'],
] as const;

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

let recorder: DynamoRecorder | undefined;
/** The recorder every measurement goes through (main.ts installs it on the service's client). */
export function useRecorder(r: DynamoRecorder): void {
  recorder = r;
}

type Handler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;
const handlers = new Map<OperationId, Promise<Handler>>();

/** The real handler module of a route-table row, loaded once as a warm Lambda keeps it. */
export function handlerFor(operationId: OperationId): Promise<Handler> {
  const file = resolve(import.meta.dirname, '../../functions/http', routeFor(operationId).entry);
  const loaded = handlers.get(operationId) ?? import(file).then((m: { handler: Handler }) => m.handler);
  handlers.set(operationId, loaded);
  return loaded;
}

/** One request through its route's handler; a site route's, as a page sends it, with no API key. */
export async function invoke(operationId: OperationId, key: string, request: BenchRequest) {
  const route = routeFor(operationId);
  const event = apiEvent(route, route.scope === 'publishable' ? '' : key, request);
  return (await handlerFor(operationId))(event, lambdaContext(operationId, event.requestContext.requestId));
}

export function expectStatus(response: HttpResponse, status: number, what: string): void {
  if (response.statusCode !== status)
    throw new Error(`${what}: ${status} expected, got ${response.statusCode} ${response.body}`);
}

/** A Tenant with an all-scopes key, a publishable key for the bench's page, and five Agents. */
export async function seedTenant(name: string) {
  const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
  const { issueApiKey } = await import('../../functions/services/api-keys.ts');
  const { issueSiteKey } = await import('../../functions/services/site-keys.ts');
  const { createAgent } = await import('../../functions/services/agents.ts');
  const { SCOPES } = await import('../../functions/domain/scopes.ts');
  const slug = `bench-${name}-${randomUUID().slice(0, 8)}`;
  const { tenantId } = await createTenantFromAdmin({ slug, name: `Bench ${name}`, languages: ['en', 'es'] });
  const { secret: apiKey } = await issueApiKey({ tenantId, name: 'bench', scopes: [...SCOPES] });
  const { key: siteKey } = await issueSiteKey({ tenantId, origins: SITE_PAGE });
  const agentIds: string[] = [];
  for (const agent of ['Lucía Fernández', 'Jörg Weiß', 'Anaïs Lefèvre', 'Tomás Ibáñez', 'Emma Johansson']) {
    const { id } = await createAgent({ tenantId, name: agent, email: `${agentIds.length}@${slug}.example` });
    agentIds.push(id);
  }
  return { tenantId, apiKey, siteKey, agentIds };
}

/** The fixture: a Tenant (seedTenant), and a listing the GETs and the load section read, with its key. */
export type BenchFixture = Awaited<ReturnType<typeof seedTenant>> & {
  propertyId: string;
  propertyKey: Record<string, string>;
};

/** The demo Place catalogue, then the fixture Tenant and its listing. */
export async function createFixture(): Promise<BenchFixture> {
  const { orderByDepth, savePlace } = await import('../../functions/services/places.ts');
  const { Listing } = await import('../../functions/data/entities/listing.ts');
  const places = JSON.parse(readFileSync(resolve(import.meta.dirname, '../local/demo-places.json'), 'utf8'));
  const parents = new Map();
  for (const place of orderByDepth(places)) await savePlace(place, parents);
  const tenant = await seedTenant('fixture');
  const body = { title: 'Bench villa', listing_type: 'sale', price: '450000', place_code: 'ES-MA-MAR' };
  const created = await invoke('createProperty', tenant.apiKey, { body: { ...body, currency: 'EUR' } });
  expectStatus(created, 201, 'fixture listing');
  const propertyId = (JSON.parse(created.body ?? '{}') as { id: string }).id;
  const { Key } = Listing.get({ tenantId: tenant.tenantId, id: propertyId }).params<{
    Key: Record<string, string>;
  }>();
  return { ...tenant, propertyId, propertyKey: Key };
}

export interface CostCase {
  label: string;
  operationId: OperationId;
  status: number;
  /** The i-th request; 0 is the warm-up (it caches the API key, as in a warm Lambda). */
  request: (i: number) => BenchRequest;
  /** A fresh container's samples: this runs before each one (caches forgotten), and no warm-up. */
  cold?: () => void;
  /** The call whose round the `afterMarked` rounds are counted from (say, a rate-limit write). */
  mark?: (call: RecordedCall) => boolean;
}

/** A case's medians over its samples, its handler time, and its targets' verdicts. */
export type CostResult = Omit<RequestCost, 'operations'> & {
  label: string;
  status: number;
  samples: number;
  operations: string[];
  /** In-process handler time, ms (median, p90): the handler with DynamoDB Local, no HTTP; its CPU ms. */
  latencyMs: number;
  p90Ms: number;
  cpuMs: number;
  /** Sequential rounds after the marked call's ({@link CostCase.mark}). */
  afterMarked: number;
  /** Items a list answered (its `total` when it says). */
  itemsReturned?: number;
  /** A GET ≤ 2 sequential round trips; `getProperty` ≤ 0.5 RCU and ≤ 1 WCU (its rate limit). */
  checks: { label: string; ok: boolean }[];
};

/** One warm-up (unless cold), then `samples` requests through the handler, each recorded. */
export async function measureCase(c: CostCase, apiKey: string, samples: number): Promise<CostResult> {
  if (!recorder) throw new Error('measureCase: call useRecorder() first');
  if (!c.cold)
    expectStatus(await invoke(c.operationId, apiKey, c.request(0)), c.status, `${c.label} warm-up`);
  const runs: { cost: RequestCost; ms: number; cpuMs: number; after: number; items: number | undefined }[] =
    [];
  for (let i = 1; i <= samples; i++) {
    c.cold?.();
    const [cpu, started] = [process.cpuUsage(), performance.now()];
    const { result, recording } = await recorder.record(() => invoke(c.operationId, apiKey, c.request(i)));
    const [ms, { user, system }] = [performance.now() - started, process.cpuUsage(cpu)];
    expectStatus(result, c.status, c.label);
    const body = (result.body ? JSON.parse(result.body) : {}) as {
      data?: unknown[];
      items?: unknown[];
      total?: number;
    };
    const after = roundsAfter(recording, c.mark ?? (() => false));
    const cost = { cost: costOf(recording), ms, cpuMs: (user + system) / 1000, after };
    runs.push({ ...cost, items: body.total ?? (body.data ?? body.items)?.length });
  }
  const med = (pick: (r: (typeof runs)[number]) => number) => round(median(runs.map(pick)), 2);
  const medians = Object.fromEntries(COST_FIELDS.map((f) => [f, med((r) => r.cost[f])])) as Omit<
    RequestCost,
    'operations'
  >;
  const typical = runs.find((r) => r.cost.roundTrips === medians.roundTrips) ?? runs[0];
  const get = routeFor(c.operationId).method === 'GET';
  const checks = [
    ...(get ? [{ label: 'seq RT ≤ 2', ok: medians.sequentialRoundTrips <= 2 }] : []),
    ...(c.operationId === 'getProperty' ? [{ label: 'RCU ≤ 0.5', ok: medians.readUnits <= 0.5 }] : []),
    ...(c.operationId === 'getProperty'
      ? [{ label: 'WCU ≤ 1 (rate limit)', ok: medians.writeUnits <= 1 }]
      : []),
  ];
  const times = runs.map((r) => r.ms).sort((a, b) => a - b);
  const spent = {
    latencyMs: med((r) => r.ms),
    p90Ms: round(percentile(times, 90), 2),
    cpuMs: med((r) => r.cpuMs),
  };
  const items = typical?.items === undefined ? {} : { itemsReturned: typical.items };
  const about = { label: c.label, status: c.status, samples, operations: typical?.cost.operations ?? [] };
  return { ...medians, ...about, ...spent, afterMarked: med((r) => r.after), ...items, checks };
}
