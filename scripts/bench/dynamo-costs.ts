/**
 * The service in the bench's process: the events its handlers get, each route's real handler module
 * loaded once as a warm Lambda keeps it, the fixture Tenant, and each case's recorded cost. Every
 * functions/ module that does I/O is imported dynamically: they read their configuration on first
 * use, and main.ts sets it just before; routes.ts and table.ts only declare data.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context, SQSEvent } from 'aws-lambda';
import type { HttpEvent, HttpResponse } from '../../functions/pipeline/http.ts';
import type { RouteDefinition } from '../../functions/pipeline/route.ts';
import { type OperationId, routeFor } from '../../functions/routes.ts';
import { httpEvent, lambdaContext } from '../local/lambda-events.ts';
import {
  COST_FIELDS,
  costOf,
  type DynamoRecorder,
  type RecordedCall,
  type RequestCost,
  roundsAfter,
} from './dynamo-recorder.ts';
import { type Column, mark, median, percentile, round } from './stats.ts';

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

let recorder: DynamoRecorder | undefined;
/** The recorder every measurement goes through (main.ts installs it on the service's client). */
export function useRecorder(r: DynamoRecorder): void {
  recorder = r;
}

type Handler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;
const handlers = new Map<OperationId, Promise<Handler>>();

/**
 * One request through its route's real handler module, loaded once as a warm Lambda keeps it; a
 * site route's with no API key, as a page sends it.
 */
export async function invoke(operationId: OperationId, key: string, request: BenchRequest) {
  const route = routeFor(operationId);
  const file = resolve(import.meta.dirname, '../../functions/http', route.entry);
  const handler = handlers.get(operationId) ?? import(file).then((m: { handler: Handler }) => m.handler);
  handlers.set(operationId, handler);
  const event = apiEvent(route, route.scope === 'publishable' ? '' : key, request);
  return (await handler)(event, lambdaContext(operationId, event.requestContext.requestId));
}

/** An answer's body, with the fields the bench reads typed. */
type Answer = Record<string, unknown> & { id: string; slug: string };

/** The answer's body, if it is `status` (any success when not given); otherwise a throw. */
function answered(operationId: OperationId, { statusCode, body }: HttpResponse, status?: number) {
  if (status === undefined ? statusCode >= 300 : statusCode !== status)
    throw new Error(`${operationId}: ${status ?? 'a success'} expected, got ${statusCode} ${body}`);
  return (body ? JSON.parse(body) : {}) as Answer;
}

/** A request that must answer `status` (any success when not given); its answer's body. */
export async function succeed(op: OperationId, key: string, request: BenchRequest, status?: number) {
  return answered(op, await invoke(op, key, request), status);
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

const SALE_IN_MARBELLA = { listing_type: 'sale', currency: 'EUR', place_code: 'ES-MA-MAR' };
/** A live listing of the fixture's Tenant; its answer. */
export const liveListing = (apiKey: string, title: string, price = 450_000) =>
  succeed('createProperty', apiKey, { body: { ...SALE_IN_MARBELLA, title, price: String(price) } }, 201);

/** The demo Place catalogue, then the fixture Tenant and its listing. */
export async function createFixture(): Promise<BenchFixture> {
  const { orderByDepth, savePlace } = await import('../../functions/services/places.ts');
  const { Listing } = await import('../../functions/data/entities/listing.ts');
  const places = JSON.parse(readFileSync(resolve(import.meta.dirname, '../local/demo-places.json'), 'utf8'));
  const parents = new Map();
  for (const place of orderByDepth(places)) await savePlace(place, parents);
  const tenant = await seedTenant('fixture');
  const { id: propertyId } = await liveListing(tenant.apiKey, 'Bench villa');
  const { Key } = Listing.get({ tenantId: tenant.tenantId, id: propertyId }).params<{
    Key: Record<string, string>;
  }>();
  return { ...tenant, propertyId, propertyKey: Key };
}

/** A request's targets: each of these figures ({@link COST_COLUMNS}) at most this. */
export type Bounds = Partial<Record<'seq' | 'afterMarked' | 'rcu' | 'wcu' | 'wcuWithIndexes' | 'ms', number>>;

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
  bounds?: Bounds;
}

/** A case's medians over its samples, its handler time, and its bounds' verdicts. */
export type CostResult = RequestCost & {
  label: string;
  status: number;
  samples: number;
  /** In-process handler time, ms (median, p90): the handler with DynamoDB Local, no HTTP; its CPU ms. */
  latencyMs: number;
  p90Ms: number;
  cpuMs: number;
  afterMarked: number;
  /** Items a list answered (its `total` when it says). */
  itemsReturned?: number;
  checks: string[];
};

/** `RCU ≤ 1 pass`, one a bound; an unmeasured figure (NaN) fails. */
export const checksOf = (r: CostResult, bounds: Bounds = {}) =>
  Object.entries(bounds).map(([name, most]) => {
    const [label, figure] = COST_COLUMNS[name as keyof Bounds];
    return `${label} ≤ ${most} ${mark(Number(figure(r)) <= most)}`;
  });

/** One warm-up (unless cold), then `samples` requests through the handler, each recorded. */
export async function measureCase(c: CostCase, apiKey: string, samples: number): Promise<CostResult> {
  if (!recorder) throw new Error('measureCase: call useRecorder() first');
  if (!c.cold) await succeed(c.operationId, apiKey, c.request(0), c.status);
  const runs: (RequestCost & { ms: number; cpuMs: number; after: number; items: number | undefined })[] = [];
  for (let i = 1; i <= samples; i++) {
    c.cold?.();
    const [cpu, started] = [process.cpuUsage(), performance.now()];
    const { result, recording } = await recorder.record(() => invoke(c.operationId, apiKey, c.request(i)));
    const [ms, { user, system }] = [performance.now() - started, process.cpuUsage(cpu)];
    const body = answered(c.operationId, result, c.status);
    const { data, items, total } = body as { data?: unknown[]; items?: unknown[]; total?: number };
    const after = roundsAfter(recording, c.mark ?? (() => false));
    const cost = { ...costOf(recording), ms, cpuMs: (user + system) / 1000, after };
    runs.push({ ...cost, items: total ?? (data ?? items)?.length });
  }
  const med = (pick: (r: (typeof runs)[number]) => number) => round(median(runs.map(pick)), 2);
  const medians = Object.fromEntries(COST_FIELDS.map((f) => [f, med((r) => r[f])])) as Omit<
    RequestCost,
    'operations'
  >;
  const typical = runs.find((r) => r.roundTrips === medians.roundTrips) ?? runs[0];
  const times = runs.map((r) => r.ms).sort((a, b) => a - b);
  const result: CostResult = {
    ...medians,
    label: c.label,
    status: c.status,
    samples,
    operations: typical?.operations ?? [],
    latencyMs: med((r) => r.ms),
    p90Ms: round(percentile(times, 90), 2),
    cpuMs: med((r) => r.cpuMs),
    afterMarked: med((r) => r.after),
    ...(typical?.items !== undefined && { itemsReturned: typical.items }),
    checks: [],
  };
  return { ...result, checks: checksOf(result, c.bounds) };
}

/** The columns of a table of {@link CostResult}s, each section picking its own. */
export const COST_COLUMNS = {
  status: ['status', (r) => r.status],
  hits: ['hits', (r) => r.itemsReturned ?? '-'],
  rt: ['RT', (r) => r.roundTrips],
  seq: ['seq', (r) => r.sequentialRoundTrips],
  afterMarked: ['seq after RL', (r) => r.afterMarked],
  calls: ['calls', (r) => r.operations.join(', ')],
  rcu: ['RCU', (r) => r.readUnits],
  wcu: ['WCU', (r) => r.writeUnits],
  billedRcu: ['billed RCU', (r) => r.billedReadUnits],
  billedWcu: ['billed WCU', (r) => r.billedWriteUnits],
  /** A transaction item and each GSI entry it writes at 2 write units. */
  wcuWithIndexes: ['WCU +idx', (r) => 2 * (r.transactItems + r.transactIndexWrites)],
  messages: ['SES/SQS', (r) => r.localPortWrites],
  read: ['read/kept', (r) => `${r.queryItemsRead}/${r.queryItemsReturned}`],
  ms: ['ms', (r) => r.latencyMs],
  p90: ['p90 ms', (r) => r.p90Ms],
  cpu: ['CPU ms', (r) => r.cpuMs],
  checks: ['targets', (r) => r.checks.join('; ') || '-'],
} satisfies Record<string, Column<CostResult>>;
