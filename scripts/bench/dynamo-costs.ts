import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResponse } from '../../functions/api/http.ts';
import { tableDefinition } from '../../functions/data/table.ts';
import { type OperationId, routeFor } from '../../functions/routes.ts';
import type { DynamoRecorder, Recording } from './dynamo-recorder.ts';
import { unitsOf } from './dynamo-recorder.ts';
import { apiEvent, type BenchRequest, lambdaContext } from './events.ts';
import { median, round } from './stats.ts';

/*
 * Every functions/ module that does I/O is imported dynamically below, never at the top: they read
 * their configuration (endpoint, table, TTLs) once on import, and main.ts sets it just before.
 * routes.ts and table.ts, imported statically above, only declare data and read no configuration.
 */

type Handler = (event: HttpEvent, context: Context) => Promise<HttpResponse>;

const ROOT = resolve(import.meta.dirname, '../..');

/** Entities that stand in for SES (outbox) and SQS (local queue) in the local stack. */
const LOCAL_PORT_ENTITIES = new Set(['outboxEmail', 'localQueueMessage']);

/** The ElectroDB entity a PutItem writes, marshalled or not. */
function entityOfPut(input: { Item?: Record<string, unknown> }): string | undefined {
  const marker = input.Item?.__edb_e__;
  if (typeof marker === 'string') return marker;
  const s = (marker as { S?: unknown } | undefined)?.S;
  return typeof s === 'string' ? s : undefined;
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
  if (item.Put) {
    const attributes = Object.keys(item.Put.Item ?? {});
    return INDEX_KEYS.filter(([pk]) => attributes.includes(pk)).length;
  }
  if (item.Update) {
    const names = new Set([
      ...Object.values(item.Update.ExpressionAttributeNames ?? {}),
      ...(item.Update.UpdateExpression?.match(/\w+/g) ?? []),
    ]);
    return 2 * INDEX_KEYS.filter(([pk, sk]) => names.has(pk) || names.has(sk)).length;
  }
  return 0;
}

/** What one request cost, read off its recorded DynamoDB calls. */
export interface RequestCost {
  roundTrips: number;
  sequentialRoundTrips: number;
  operations: string[];
  readUnits: number;
  writeUnits: number;
  /** TransactWriteItems calls, their items, and the write units Local reported for them. */
  transactions: number;
  transactItems: number;
  transactReportedUnits: number;
  /** GSI entries those transactions write, as far as the request shows (see indexWrites). */
  transactIndexWrites: number;
  /** Items Query/Scan calls read (ScannedCount: what is billed) and returned (Count: after filters). */
  queryItemsRead: number;
  queryItemsReturned: number;
  /** Puts of the local outbox and local queue: SES and SQS calls in AWS, not DynamoDB writes. */
  localPortWrites: number;
}

/**
 * Sums a request's calls. DynamoDB Local books 2 units for a TransactWriteItems of small unindexed
 * items whatever their number, while real DynamoDB bills 2 WCU per item (≤ 1 KB): counting the
 * items gives the real figure.
 */
export function costOf(recording: Pick<Recording, 'calls' | 'rounds'>): RequestCost {
  const cost: RequestCost = {
    roundTrips: recording.calls.length,
    sequentialRoundTrips: recording.rounds,
    operations: recording.calls.map((c) => c.operation),
    readUnits: 0,
    writeUnits: 0,
    transactions: 0,
    transactItems: 0,
    transactReportedUnits: 0,
    transactIndexWrites: 0,
    queryItemsRead: 0,
    queryItemsReturned: 0,
    localPortWrites: 0,
  };
  for (const { operation, input, output } of recording.calls) {
    const units = unitsOf(operation, output);
    cost.readUnits += units.read;
    cost.writeUnits += units.write;
    if (operation === 'PutItem' && LOCAL_PORT_ENTITIES.has(entityOfPut(input as never) ?? '')) {
      cost.localPortWrites += 1;
    }
    if (operation === 'Query' || operation === 'Scan') {
      const { Count, ScannedCount } = output as { Count?: number; ScannedCount?: number };
      cost.queryItemsRead += ScannedCount ?? 0;
      cost.queryItemsReturned += Count ?? 0;
    }
    if (operation === 'TransactWriteItems') {
      const items = (input as { TransactItems?: TransactItem[] }).TransactItems ?? [];
      cost.transactions += 1;
      cost.transactItems += items.length;
      cost.transactIndexWrites += items.reduce((sum, item) => sum + indexWrites(item), 0);
      cost.transactReportedUnits += units.write;
    }
  }
  return cost;
}

let recorder: DynamoRecorder | undefined;

/** The recorder every cost measurement goes through; main.ts points the handlers' endpoint at it. */
export function useRecorder(r: DynamoRecorder): void {
  recorder = r;
}

const handlers = new Map<OperationId, Promise<Handler>>();

/** The real handler module of a route-table row, loaded once as a warm Lambda keeps it. */
export function handlerFor(operationId: OperationId): Promise<Handler> {
  let loaded = handlers.get(operationId);
  if (!loaded) {
    const file = resolve(ROOT, 'functions/http', routeFor(operationId).entry);
    loaded = import(pathToFileURL(file).href).then((m: { handler: Handler }) => m.handler);
    handlers.set(operationId, loaded);
  }
  return loaded;
}

export async function invoke(
  operationId: OperationId,
  apiKey: string,
  request: BenchRequest,
): Promise<HttpResponse> {
  const event = apiEvent(routeFor(operationId), apiKey, request);
  const handler = await handlerFor(operationId);
  return handler(event, lambdaContext(operationId, event.requestContext.requestId));
}

export function expectStatus(response: HttpResponse, status: number, what: string): void {
  if (response.statusCode !== status) {
    throw new Error(`${what}: expected ${status}, got ${response.statusCode} ${response.body ?? ''}`);
  }
}

export interface BenchFixture {
  tenantId: string;
  apiKey: string;
  placeCount: number;
  /** A listing the GET and the load phase read. */
  propertyId: string;
  /** Its DynamoDB key, for the raw GetItem floor. */
  propertyKey: Record<string, string>;
  /** An Agent of the Tenant, named by email in the full-model create. */
  agentEmail: string;
  agentId: string;
}

/** The demo Place catalogue, a tenant with an all-scopes key, and one listing: through the services. */
export async function createFixture(): Promise<BenchFixture> {
  const { orderByDepth, savePlace } = await import('../../functions/services/places.ts');
  const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
  const { issueApiKey } = await import('../../functions/services/api-keys.ts');
  const { SCOPES } = await import('../../functions/domain/scopes.ts');
  const { Listing } = await import('../../functions/data/entities/listing.ts');
  const { createAgent } = await import('../../functions/services/agents.ts');

  const places = JSON.parse(
    readFileSync(resolve(ROOT, 'scripts/local/demo-places.json'), 'utf8'),
  ) as Parameters<typeof orderByDepth>[0];
  const parents = new Map();
  for (const place of orderByDepth(places)) await savePlace(place, parents);

  const slug = `bench-${randomUUID().slice(0, 8)}`;
  const tenant = await createTenantFromAdmin({ slug, name: 'Bench Realty', languages: ['en', 'es'] });
  const { secret } = await issueApiKey({ tenantId: tenant.tenantId, name: 'bench', scopes: [...SCOPES] });
  const agent = await createAgent({
    tenantId: tenant.tenantId,
    name: 'Lucía Fernández',
    email: `lucia.fernandez@${slug}.example`,
  });

  const created = await invoke('createProperty', secret, {
    body: {
      title: 'Bench reference villa',
      listing_type: 'sale',
      price: '450000',
      currency: 'EUR',
      place_code: 'ES-MA-MAR',
    },
  });
  expectStatus(created, 201, 'fixture listing');
  const propertyId = (JSON.parse(created.body ?? '{}') as { id: string }).id;
  const { Key } = Listing.get({ tenantId: tenant.tenantId, id: propertyId }).params<{
    Key: Record<string, string>;
  }>();
  return {
    tenantId: tenant.tenantId,
    apiKey: secret,
    placeCount: places.length,
    propertyId,
    propertyKey: Key,
    agentEmail: agent.email,
    agentId: agent.id,
  };
}

export interface CostCase {
  label: string;
  operationId: OperationId;
  status: number;
  /** The i-th request; 0 is the warm-up (it caches the API key, as in a warm Lambda). */
  request: (i: number) => BenchRequest;
}

export interface Check {
  label: string;
  ok: boolean;
}

export interface CostResult {
  label: string;
  operationId: OperationId;
  method: string;
  samples: number;
  status: number;
  /** DynamoDB calls per request (median) … */
  roundTrips: number;
  /** … of which started while no other was in flight: the latency-relevant count. */
  sequentialRoundTrips: number;
  operations: string[];
  readUnits: number;
  writeUnits: number;
  /** TransactWriteItems calls per request, and the items they write (real DynamoDB: 2 WCU each). */
  transactions: number;
  transactItems: number;
  /** The write units Local booked for those transactions: not a usable figure (see NOTES). */
  transactLocalUnits: number;
  /** GSI entries the transactions write (heuristic); billed by real DynamoDB on top of the table. */
  transactIndexWrites: number;
  /**
   * Real DynamoDB, table writes only: the non-transactional units as Local reports them, plus
   * 2 WCU per transaction item (each ≤ 1 KB). Index writes (transactIndexWrites) come on top.
   */
  realWriteUnitsEstimate: number;
  itemsReturned?: number;
  /** Items the request's Query calls read (billed) and kept after filter expressions (medians). */
  queryItemsRead: number;
  queryItemsReturned: number;
  /** Of roundTrips and WCU: writes to the local outbox / queue, which are SES / SQS calls in AWS. */
  localPortWrites: number;
  /** In-process handler time, ms (median): the handler with DynamoDB Local, no HTTP. */
  latencyMs: number;
  checks: Check[];
}

function checksFor(c: CostCase, r: Omit<CostResult, 'checks'>): Check[] {
  const checks: Check[] = [];
  if (r.method === 'GET') {
    checks.push({ label: 'seq RT ≤ 2', ok: r.sequentialRoundTrips <= 2 });
  }
  if (c.operationId === 'getProperty') {
    checks.push({ label: 'RCU ≤ 0.5', ok: r.readUnits <= 0.5 });
    checks.push({ label: 'WCU ≤ 1 (rate limit)', ok: r.writeUnits <= 1 });
  }
  return checks;
}

export async function measureCase(c: CostCase, apiKey: string, samples: number): Promise<CostResult> {
  if (!recorder) throw new Error('measureCase: call useRecorder() first');
  const route = routeFor(c.operationId);
  expectStatus(await invoke(c.operationId, apiKey, c.request(0)), c.status, `${c.label} warm-up`);
  const runs: { cost: RequestCost; ms: number; items?: number }[] = [];
  for (let i = 1; i <= samples; i++) {
    const request = c.request(i);
    const started = performance.now();
    const { result, recording } = await recorder.record(() => invoke(c.operationId, apiKey, request));
    const ms = performance.now() - started;
    expectStatus(result, c.status, c.label);
    const data = result.body ? (JSON.parse(result.body) as { data?: unknown[] }).data : undefined;
    runs.push({ cost: costOf(recording), ms, ...(Array.isArray(data) ? { items: data.length } : {}) });
  }
  const med = (pick: (r: (typeof runs)[number]) => number) => round(median(runs.map(pick)), 2);
  const roundTrips = med((r) => r.cost.roundTrips);
  const typical = runs.find((r) => r.cost.roundTrips === roundTrips) ?? runs[0];
  const result: Omit<CostResult, 'checks'> = {
    label: c.label,
    operationId: c.operationId,
    method: route.method,
    samples,
    status: c.status,
    roundTrips,
    sequentialRoundTrips: med((r) => r.cost.sequentialRoundTrips),
    operations: typical?.cost.operations ?? [],
    readUnits: med((r) => r.cost.readUnits),
    writeUnits: med((r) => r.cost.writeUnits),
    transactions: med((r) => r.cost.transactions),
    transactItems: med((r) => r.cost.transactItems),
    transactLocalUnits: med((r) => r.cost.transactReportedUnits),
    transactIndexWrites: med((r) => r.cost.transactIndexWrites),
    realWriteUnitsEstimate: med(
      (r) => r.cost.writeUnits - r.cost.transactReportedUnits + 2 * r.cost.transactItems,
    ),
    ...(typical?.items !== undefined ? { itemsReturned: typical.items } : {}),
    queryItemsRead: med((r) => r.cost.queryItemsRead),
    queryItemsReturned: med((r) => r.cost.queryItemsReturned),
    localPortWrites: med((r) => r.cost.localPortWrites),
    latencyMs: med((r) => r.ms),
  };
  return { ...result, checks: checksFor(c, result) };
}

/** Creates `count` listings outside any measurement, for the operations that use one up per request. */
export async function createListings(apiKey: string, count: number, title: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await invoke('createProperty', apiKey, { body: { title: `${title} ${i}` } });
    expectStatus(response, 201, 'seed listing');
    ids.push((JSON.parse(response.body ?? '{}') as { id: string }).id);
  }
  return ids;
}

/**
 * The slice's operations, each warmed once and then measured `samples` times in-process, with the
 * real handler modules and events as API Gateway would send them. Writes that use up their target
 * (a new internal_ref, a listing to archive) get a fresh one per request so every sample takes
 * the same path.
 */
export async function measureCosts(
  fixture: BenchFixture,
  samples: number,
  log: (line: string) => void,
): Promise<CostResult[]> {
  const { apiKey, propertyId } = fixture;
  const run = randomUUID().slice(0, 6);
  const [titleTarget] = await createListings(apiKey, 1, `Bench retitled ${run}`);
  const toArchive = await createListings(apiKey, samples + 1, `Bench to archive ${run}`);
  const newListing = (i: number, prefix: string) => ({
    title: `Bench flat ${run} ${prefix}${i}`,
    listing_type: 'sale',
    price: '350000',
    currency: 'EUR',
    bedrooms: 3,
    bathrooms: '2',
    place_code: 'ES-MA-MAR',
    internal_ref: `BENCH-${run}-${prefix}${i}`,
  });
  /** Every writable field of §2.4 a full listing carries, written in Spanish (?lang=es). */
  const fullListing = (i: number) => ({
    ...newListing(i, 'f'),
    title: `Villa con piscina ${run} f${i}`,
    description: 'Villa luminosa a 300 m de la playa, con jardín, piscina privada y vistas al mar.',
    property_type: 'villa',
    bedrooms: 4,
    bathrooms: '3.5',
    area: '245.50',
    lot_area: '1200',
    parking_spaces: 2,
    year_built: 2008,
    floor: 0,
    hoa_fee: '180.00',
    amenities: ['private_pool', 'garden', 'sea_view', 'air_conditioning', 'garage', 'alarm'],
    address: 'Calle del Mar 12, Marbella',
    latitude: 36.5101,
    longitude: -4.8825,
    location_precision: 'approximate',
    is_featured: true,
    video_url: 'https://video.example/villa.mp4',
    tour_url: 'https://tour.example/villa',
    highlights: ['Piscina privada', 'Vistas al mar', 'A 300 m de la playa'],
    agent_email: fixture.agentEmail,
  });

  const cases: CostCase[] = [
    {
      label: `listPlaces (${fixture.placeCount} places)`,
      operationId: 'listPlaces',
      status: 200,
      request: () => ({}),
    },
    {
      label: 'createProperty (place, internal_ref)',
      operationId: 'createProperty',
      status: 201,
      request: (i) => ({ body: newListing(i, 'c') }),
    },
    {
      label: 'createProperty + Idempotency-Key',
      operationId: 'createProperty',
      status: 201,
      request: (i) => ({ body: newListing(i, 'k'), headers: { 'Idempotency-Key': `bench-${run}-${i}` } }),
    },
    {
      label: 'createProperty (full model: ?lang=es, amenities, agent_email, place, highlights)',
      operationId: 'createProperty',
      status: 201,
      request: (i) => ({ query: { lang: 'es' }, body: fullListing(i) }),
    },
    {
      label: 'getProperty',
      operationId: 'getProperty',
      status: 200,
      request: () => ({ pathParameters: { property_id: propertyId } }),
    },
    {
      label: 'listProperties (default limit)',
      operationId: 'listProperties',
      status: 200,
      request: () => ({}),
    },
    {
      label: 'updateProperty (price)',
      operationId: 'updateProperty',
      status: 200,
      request: (i) => ({
        pathParameters: { property_id: propertyId },
        body: { price: String(450000 + i * 1000) },
      }),
    },
    {
      label: 'updateProperty (title → new slug)',
      operationId: 'updateProperty',
      status: 200,
      request: (i) => ({
        pathParameters: { property_id: titleTarget ?? '' },
        body: { title: `Bench retitled ${run} v${i}` },
      }),
    },
    {
      label: 'archiveProperty',
      operationId: 'archiveProperty',
      status: 204,
      request: (i) => ({ pathParameters: { property_id: toArchive[i] ?? '' } }),
    },
  ];

  const results: CostResult[] = [];
  for (const c of cases) {
    const result = await measureCase(c, apiKey, samples);
    log(`  ${c.label}: ${result.roundTrips} round trips, ${result.readUnits} RCU, ${result.writeUnits} WCU`);
    results.push(result);
  }
  return results;
}
