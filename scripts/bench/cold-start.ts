/**
 * The cold-start section (issue 8, point 2): every deployed function's bundle, fresh-process module
 * load and import plus first response, each beside the floor handler (floor/handler.ts) measured in
 * the same run, on the same cores, in the same passes.
 *
 * Each sample is one fresh `node` that imports a bundle and hands it one real event: an API Gateway
 * request for a route (authenticated with a seeded key, against a Tenant seeded in DynamoDB Local),
 * a stream record for the stream consumer, a queue message for the AI worker, the schedule's event
 * for the resume job. The process times itself: `import()` alone (module load), and `import()` plus
 * the handler's answer (first response). Node's own start-up, the same for all, is left out.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { RouteDefinition } from '../../functions/api/route.ts';
import { routes } from '../../functions/routes.ts';
import { httpEvent } from '../local/lambda-events.ts';
import { type AwsResponder, awsEndpointEnv, responderQueueUrl, startAwsResponder } from './aws-responder.ts';
import type { BundleResult } from './bundles.ts';
import type { BenchFixture } from './dynamo-costs.ts';
import { BENCH_TABLE, type CursorKeySource, coldStartEnv } from './env.ts';
import { apiEvent, type BenchRequest } from './events.ts';
import { floorListing } from './floor/listing.ts';
import { benchDocumentClient } from './sdk.ts';
import { type Summary, summarize } from './stats.ts';

const run = promisify(execFile);

/** What the seeded Tenant offers the cold requests: one of each resource, and spares to archive. */
export interface ColdFixture extends BenchFixture {
  tag: string;
  leadId: string;
  inquiryId: string;
  activityId: string;
  /** A listing created by PUT /v1/properties/by-ref/{internal_ref}, which later samples update. */
  internalRef: string;
  /** One listing and one Lead per sample (the warm-up pass included) for the archive routes. */
  archivableProperties: string[];
  archivableLeads: string[];
  floorListingId: string;
  /** A publishable key of the Tenant for SITE_ORIGIN, and the slugs its site routes are read by. */
  siteKey: string;
  propertySlug: string;
  locationSlug: string;
  agentSlug: string;
  /** A webhook endpoint the reads, updates, tests and rotations use, and one spare per sample to delete. */
  webhookId: string;
  deletableWebhooks: string[];
  /** One delivery (a test ping) of webhookId per sample, for redeliver. */
  webhookDeliveries: string[];
  /** An event of the events log: the fixture listing's creation. */
  eventId: string;
  /** A photo import by URL of the fixture listing (queued, as the route leaves it). */
  imageImportId: string;
  /** A gallery photo the PATCH samples edit, and one per sample to delete. */
  imageId: string;
  deletableImages: string[];
  /** Per sample: a test ping the delivery worker sends (its send request id is the message token). */
  workerDeliveries: { deliveryId: string; token: string }[];
  /** Per sample: a queued photo import the import worker runs. */
  workerImports: string[];
}

/** The page the cold site requests come from (an origin the fixture's publishable key allows). */
const SITE_ORIGIN = 'https://cold.bench.example';

/** Cloudflare's dummy Turnstile token (functions/kernel/ports/turnstile.ts). */
const TURNSTILE_DUMMY_TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';

/**
 * A site request as a page makes it: the publishable key and the origin in the query, the browser's
 * Origin header, no Authorization.
 */
function siteEvent(route: RouteDefinition, key: string, request: BenchRequest = {}) {
  const params = request.pathParameters ?? {};
  const query = { key, origin: SITE_ORIGIN, ...(request.query ?? {}) };
  return httpEvent({
    route,
    rawPath: route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? '')),
    rawQueryString: new URLSearchParams(query).toString(),
    headers: {
      host: 'bench.local',
      'user-agent': 'bench',
      origin: SITE_ORIGIN,
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    query,
    pathParameters: params,
    body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
}

/** The first item's `slug` of a site list, read in-process through the route's own handler. */
async function firstSlug(operationId: string, key: string, kind?: string): Promise<string> {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`cold-start fixture: no route ${operationId}`);
  const { lambdaContext } = await import('./events.ts');
  const module = (await import(pathToFileURL(resolve('functions/http', route.entry)).href)) as {
    handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body?: string }>;
  };
  const event = siteEvent(route, key);
  const res = await module.handler(event, lambdaContext(operationId, event.requestContext.requestId));
  const items = (JSON.parse(res.body ?? '{}') as { items?: { slug?: string; kind?: string }[] }).items ?? [];
  const slug = items.find((item) => kind === undefined || item.kind === kind)?.slug;
  if (!slug)
    throw new Error(`cold-start fixture: no slug from ${operationId}: ${res.statusCode} ${res.body}`);
  return slug;
}

const idOf = (body: string | undefined, field = 'id'): string => {
  const value = (JSON.parse(body ?? '{}') as Record<string, unknown>)[field];
  if (typeof value !== 'string') throw new Error(`cold-start fixture: no ${field} in ${body}`);
  return value;
};

/**
 * Seeds, through the service's own handlers (in-process), for the fixture's Tenant and listing: a
 * Lead with an Inquiry, an Activity and criteria that match the listing, and `samples` spares to archive; and the
 * floor's one item.
 */
export async function seedColdStart(
  base: BenchFixture,
  samples: number,
  dynamoEndpoint: string,
): Promise<ColdFixture> {
  const { createListings, expectStatus, invoke } = await import('./dynamo-costs.ts');
  const key = base.apiKey;
  const tag = randomUUID().slice(0, 8);
  const createLead = async (n: string) => {
    const res = await invoke('createLead', key, {
      body: { name: `Cold Start ${n}`, email: `cold-${tag}-${n}@example.com` },
    });
    expectStatus(res, 201, 'cold-start Lead');
    return idOf(res.body);
  };
  const leadId = await createLead('main');
  const ingest = await invoke('ingestLead', key, {
    body: {
      source: 'bench',
      type: 'inquiry',
      person: { name: 'Cold Start main', email: `cold-${tag}-main@example.com` },
      message: 'Is the villa still available?',
      property_id: base.propertyId,
    },
  });
  if (ingest.statusCode >= 300) throw new Error(`cold-start ingest: ${ingest.statusCode} ${ingest.body}`);
  const inquiryId = idOf(ingest.body, 'inquiry_id');
  const activity = await invoke('createActivity', key, {
    pathParameters: { lead_id: leadId },
    body: { kind: 'note', title: 'Called back, wants a visit' },
  });
  expectStatus(activity, 201, 'cold-start Activity');
  const criteria = await invoke('putLeadCriteria', key, {
    pathParameters: { lead_id: leadId },
    body: COLD_CRITERIA,
  });
  expectStatus(criteria, 200, 'cold-start criteria');
  const internalRef = `COLD-${tag}`;
  const upsert = await invoke('upsertPropertyByRef', key, {
    pathParameters: { internal_ref: internalRef },
    body: { title: 'Cold start by reference' },
  });
  expectStatus(upsert, 201, 'cold-start listing by reference');
  const archivableProperties = await createListings(key, samples, `Cold to archive ${tag}`);
  const archivableLeads: string[] = [];
  for (let i = 0; i < samples; i++) archivableLeads.push(await createLead(`archive-${i}`));

  const floorListingId = `floor-${tag}`;
  await floorListing({ table: BENCH_TABLE, client: benchDocumentClient(dynamoEndpoint) })
    .put({ id: floorListingId, title: 'Floor villa', price: '450000', updatedAt: new Date().toISOString() })
    .go();

  const { issueSiteKey } = await import('../../functions/services/site-keys.ts');
  const { key: siteKey } = await issueSiteKey({
    tenantId: base.tenantId,
    origins: SITE_ORIGIN,
    name: 'cold',
  });
  const listing = await invoke('getProperty', key, { pathParameters: { property_id: base.propertyId } });
  expectStatus(listing, 200, 'cold-start listing');
  const propertySlug = idOf(listing.body, 'slug');
  const locationSlug = await firstSlug('listSiteLocations', siteKey, 'place');
  const agentSlug = await firstSlug('listSiteAgents', siteKey);

  // Endpoints at a name no one resolves: the routes only write the delivery (the stream consumer
  // queues the send), so nothing is sent during a sample.
  const createWebhook = async (n: string) => {
    const res = await invoke('createWebhookSubscription', key, {
      body: { url: `https://hooks.cold.bench.example/${tag}/${n}`, events: ['lead.created'] },
    });
    expectStatus(res, 201, 'cold-start webhook');
    return idOf(res.body);
  };
  const webhookId = await createWebhook('main');
  const deletableWebhooks: string[] = [];
  const webhookDeliveries: string[] = [];
  for (let i = 0; i < samples; i++) {
    deletableWebhooks.push(await createWebhook(`delete-${i}`));
    const ping = await invoke('testWebhook', key, { pathParameters: { endpoint_id: webhookId } });
    if (ping.statusCode >= 300) throw new Error(`cold-start test ping: ${ping.statusCode} ${ping.body}`);
    webhookDeliveries.push(idOf(ping.body));
  }

  // The events log is written by the stream consumer's events processor: run it on the fixture
  // listing's creation, as its stream record would reach it.
  const { eventsOf } = await import('../../functions/streams/events.ts');
  const { putEvent } = await import('../../functions/data/events.ts');
  const { Item: listingItem } = await benchDocumentClient(dynamoEndpoint).send(
    new GetCommand({ TableName: BENCH_TABLE, Key: base.propertyKey }),
  );
  const events = await eventsOf({
    eventId: randomUUID().replaceAll('-', ''),
    kind: 'INSERT',
    entity: listingItem?.__edb_e__ as string | undefined,
    oldImage: undefined,
    newImage: listingItem,
  });
  await Promise.all(events.map(putEvent));
  const eventId = events[0]?.id;
  if (!eventId) throw new Error('cold-start fixture: the fixture listing emitted no event');

  // Photos: an import by URL as the route queues it, and gallery photos stored through the import
  // worker's own service function (the local photo store in this process).
  const imported = await invoke('importPropertyImage', key, {
    pathParameters: { property_id: base.propertyId },
    body: { url: `https://photos.bench.example/${tag}/seed.jpg` },
  });
  if (imported.statusCode >= 300)
    throw new Error(`cold-start photo import: ${imported.statusCode} ${imported.body}`);
  const imageImportId = idOf(imported.body);
  const { importPhoto } = await import('../../functions/services/photo-processing.ts');
  const { setPhotoStore } = await import('../../functions/kernel/ports/photo-store.ts');
  // The bench process has no S3: the seeded photos' files go to memory (only the gallery entries
  // matter to the samples; a cold delete asks the responder's S3 to delete the file).
  const files = new Map<string, Buffer>();
  setPhotoStore({
    presignPut: () => Promise.reject(new Error('cold-start fixture: no presigning')),
    head: async (k) =>
      files.has(k) ? { sizeBytes: files.get(k)?.length ?? 0, version: 'in-memory' } : undefined,
    readStart: async (k, bytes) => (files.get(k) ?? Buffer.alloc(0)).subarray(0, bytes),
    read: async (k) => files.get(k),
    put: async (k, body) => void files.set(k, body),
    copy: async (from, to) => void files.set(to, files.get(from) ?? Buffer.alloc(0)),
    delete: async (k) => void files.delete(k),
    publicUrl: (k) => `https://photos.bench.example/${k}`,
  });
  const addImage = async () => {
    const added = await importPhoto(
      base.tenantId,
      base.propertyId,
      { importId: randomUUID(), attempt: 1, body: TINY_PNG, contentType: 'image/png' },
      {},
    );
    if (!added.ok) throw new Error(`cold-start photo: ${added.reason} ${added.detail}`);
    return added.image.id;
  };
  const imageId = await addImage();
  const deletableImages: string[] = [];
  for (let i = 0; i < samples; i++) deletableImages.push(await addImage());
  setPhotoStore(undefined);
  const workerImports: string[] = [];
  const workerDeliveries: ColdFixture['workerDeliveries'] = [];
  const { getDelivery } = await import('../../functions/data/webhooks.ts');
  for (let i = 0; i < samples; i++) {
    const queued = await invoke('importPropertyImage', key, {
      pathParameters: { property_id: base.propertyId },
      body: { url: `https://photos.bench.example/${tag}/worker-${i}.jpg` },
    });
    expectStatus(queued, 202, 'cold-start photo import for the worker');
    workerImports.push(idOf(queued.body));
    const ping = await invoke('testWebhook', key, { pathParameters: { endpoint_id: webhookId } });
    const deliveryId = idOf(ping.body);
    const token = (await getDelivery(base.tenantId, deliveryId))?.sendRequestId;
    if (!token) throw new Error(`cold-start fixture: delivery ${deliveryId} has no send request`);
    workerDeliveries.push({ deliveryId, token });
  }

  return {
    ...base,
    workerDeliveries,
    workerImports,
    imageImportId,
    imageId,
    deletableImages,
    eventId,
    webhookId,
    deletableWebhooks,
    webhookDeliveries,
    siteKey,
    propertySlug,
    locationSlug,
    agentSlug,
    tag,
    leadId,
    inquiryId,
    activityId: idOf(activity.body),
    internalRef,
    archivableProperties,
    archivableLeads,
    floorListingId,
  };
}

/** A 1×1 PNG: the gallery photos the fixture stores. */
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Criteria the fixture listing meets; `place_codes` makes the matches read Places in a batch. */
const COLD_CRITERIA = { listing_type: 'sale', place_codes: ['ES-MA-MAR'], notes: 'Sea view' };

type ColdRequest = (fx: ColdFixture, i: number) => BenchRequest;

/**
 * The request each route serves in its cold sample `i`: a successful one, the common case, with a
 * fresh target where the request uses one up. A route not listed here (added since) still gets a
 * request from its path (see fallbackRequest) and the table shows the status it answered.
 */
const COLD_REQUESTS: Record<string, ColdRequest> = {
  createProperty: (fx, i) => ({ body: { title: `Cold start flat ${fx.tag} ${i}`, price: '250000' } }),
  updateProperty: (fx, i) => ({
    pathParameters: { property_id: fx.propertyId },
    body: { price: String(450000 + i * 1000) },
  }),
  archiveProperty: (fx, i) => ({ pathParameters: { property_id: fx.archivableProperties[i] ?? '' } }),
  upsertPropertyByRef: (fx, i) => ({
    pathParameters: { internal_ref: fx.internalRef },
    body: { title: `Cold start by reference v${i}` },
  }),
  createLead: (fx, i) => ({
    body: { name: `Cold Walk-in ${i}`, email: `walkin-${fx.tag}-${i}@example.com` },
  }),
  ingestLead: (fx, i) => ({
    body: {
      source: 'bench',
      type: 'inquiry',
      person: { name: `Cold Ingest ${i}`, email: `ingest-${fx.tag}-${i}@example.com` },
      message: 'Can I visit on Saturday?',
      property_id: fx.propertyId,
    },
  }),
  updateLead: (fx, i) => ({ pathParameters: { lead_id: fx.leadId }, body: { notes: `Cold note ${i}` } }),
  archiveLead: (fx, i) => ({ pathParameters: { lead_id: fx.archivableLeads[i] ?? '' } }),
  createActivity: (fx, i) => ({
    pathParameters: { lead_id: fx.leadId },
    body: { kind: 'note', title: `Cold start note ${i}` },
  }),
  updateActivity: (fx, i) => ({
    pathParameters: { activity_id: fx.activityId },
    body: { title: `Called back, v${i}` },
  }),
  linkLeadProperty: (fx) => ({
    pathParameters: { lead_id: fx.leadId },
    body: { property_id: fx.propertyId, role: 'interested' },
  }),
  putLeadCriteria: (fx) => ({ pathParameters: { lead_id: fx.leadId }, body: COLD_CRITERIA }),
  importPropertyImage: (fx, i) => ({
    pathParameters: { property_id: fx.propertyId },
    body: { url: `https://photos.bench.example/${fx.tag}/photo-${i}.jpg` },
  }),
  createPropertyImageUpload: (fx) => ({
    pathParameters: { property_id: fx.propertyId },
    body: { content_type: 'image/png', size_bytes: 2048 },
  }),
  createWebhookSubscription: (fx, i) => ({
    body: { url: `https://hooks.cold.bench.example/${fx.tag}/new-${i}`, events: ['lead.created'] },
  }),
  getWebhook: (fx) => ({ pathParameters: { endpoint_id: fx.webhookId } }),
  updateWebhook: (fx) => ({
    pathParameters: { endpoint_id: fx.webhookId },
    body: { enabled: true },
  }),
  deleteWebhookSubscription: (fx, i) => ({ pathParameters: { endpoint_id: fx.deletableWebhooks[i] ?? '' } }),
  listWebhookDeliveries: (fx) => ({ pathParameters: { endpoint_id: fx.webhookId } }),
  redeliverWebhookDelivery: (fx, i) => ({
    pathParameters: { endpoint_id: fx.webhookId, delivery_id: fx.webhookDeliveries[i] ?? '' },
  }),
  testWebhook: (fx) => ({ pathParameters: { endpoint_id: fx.webhookId } }),
  rotateWebhookSecret: (fx) => ({ pathParameters: { endpoint_id: fx.webhookId } }),
  getPropertyImageImport: (fx) => ({
    pathParameters: { property_id: fx.propertyId, import_id: fx.imageImportId },
  }),
  updatePropertyImage: (fx, i) => ({
    pathParameters: { property_id: fx.propertyId, image_id: fx.imageId },
    // Alternating, so that every sample changes the gallery (an unchanged one writes nothing).
    body: { sort_order: i % 2 === 0 ? 0 : 100 },
  }),
  deletePropertyImage: (fx, i) => ({
    pathParameters: { property_id: fx.propertyId, image_id: fx.deletableImages[i] ?? '' },
  }),
  sendLeadMatches: (fx) => ({
    pathParameters: { lead_id: fx.leadId },
    body: { property_ids: [fx.propertyId] },
  }),
};

/** The site routes: their requests, sent with the publishable key (siteEvent). */
const SITE_REQUESTS: Record<string, ColdRequest> = {
  searchSiteProperties: () => ({}),
  getSitePropertyBySlug: (fx) => ({ pathParameters: { slug: fx.propertySlug } }),
  getSitePropertyById: (fx) => ({ pathParameters: { property_id: fx.propertyId } }),
  listSimilarBySlug: (fx) => ({ pathParameters: { slug: fx.propertySlug } }),
  listSimilarById: (fx) => ({ pathParameters: { property_id: fx.propertyId } }),
  listSiteLocations: () => ({}),
  getSiteLocation: (fx) => ({ pathParameters: { slug: fx.locationSlug } }),
  listSiteAgents: () => ({}),
  getSiteAgentBySlug: (fx) => ({ pathParameters: { slug: fx.agentSlug } }),
  listSiteAmenities: () => ({}),
  getTheme: () => ({}),
  createSiteLead: (fx, i) => ({
    body: {
      name: `Cold Visitor ${i}`,
      email: `visitor-${fx.tag}-${i}@example.com`,
      message: 'Is it still available?',
      property_id: fx.propertyId,
      turnstile: TURNSTILE_DUMMY_TOKEN,
    },
  }),
  countSitePropertyView: (fx) => ({ pathParameters: { slug: fx.propertySlug } }),
};

/** Path parameters by name, for the routes COLD_REQUESTS does not list (GETs mostly need no more). */
export function fallbackRequest(
  route: Pick<RouteDefinition, 'method' | 'path'>,
  fx: ColdFixture,
): BenchRequest {
  const known: Record<string, string> = {
    property_id: fx.propertyId,
    lead_id: fx.leadId,
    inquiry_id: fx.inquiryId,
    activity_id: fx.activityId,
    agent_id: fx.agentId,
    internal_ref: fx.internalRef,
    event_id: fx.eventId,
  };
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
  const pathParameters = Object.fromEntries(names.map((n) => [n, known[n] ?? `bench-${n}`]));
  return {
    ...(names.length ? { pathParameters } : {}),
    ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }),
  };
}

/** A DynamoDB stream record (NEW_AND_OLD_IMAGES) of one item's change. */
function streamRecord(
  oldItem: Record<string, unknown>,
  newItem: Record<string, unknown>,
  sequence: number,
): Record<string, unknown> {
  const options = { removeUndefinedValues: true, convertClassInstanceToMap: true };
  return {
    eventID: randomUUID().replaceAll('-', ''),
    eventName: 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: marshall({ pk: newItem.pk, sk: newItem.sk }),
      OldImage: marshall(oldItem, options),
      NewImage: marshall(newItem, options),
      SequenceNumber: String(100000000000000000000 + sequence),
      SizeBytes: 512,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${BENCH_TABLE}/stream/2026-01-01T00:00:00.000`,
  };
}

/** An SQS event of one message, as the queue's event source mapping hands it to the worker. */
function sqsEvent(message: unknown, queue: string): unknown {
  const messageId = randomUUID();
  const now = String(Date.now());
  return {
    Records: [
      {
        messageId,
        receiptHandle: `bench-${messageId}`,
        body: JSON.stringify(message),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: now,
          SenderId: 'bench',
          ApproximateFirstReceiveTimestamp: now,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
        awsRegion: 'us-east-1',
      },
    ],
  };
}

/**
 * The queue workers' messages, as their producers send them: the delivery message of a test ping
 * (functions/kernel/ports/webhook-ladder.ts DeliveryMessage) and a photo import's first attempt
 * (functions/workers/image-import.ts ImageImportMessage), a fresh one per sample.
 */
const WORKER_MESSAGES: Record<string, (fx: ColdFixture, i: number) => unknown> = {
  'functions/workers/webhook-delivery.ts': (fx, i) => ({
    tenantId: fx.tenantId,
    endpointId: fx.webhookId,
    deliveryId: fx.workerDeliveries[i]?.deliveryId ?? '',
    trigger: 'test',
    token: fx.workerDeliveries[i]?.token ?? '',
  }),
  'functions/workers/image-import.ts': (fx, i) => ({
    type: 'import',
    tenantId: fx.tenantId,
    propertyId: fx.propertyId,
    importId: fx.workerImports[i] ?? '',
    attempt: 1,
  }),
};

const FLOOR_ROUTE = { method: 'GET', path: '/floor/{listing_id}' } as const;

/**
 * The event of sample `i` for one function. `generic` marks events the bench had to guess (a
 * function added since, that no case here knows): its row says so.
 */
export async function coldEvent(
  bundle: BundleResult,
  fx: ColdFixture,
  i: number,
  dynamoEndpoint: string,
): Promise<{ event: unknown; generic: boolean }> {
  if (bundle.kind === 'floor') {
    const event = apiEvent(FLOOR_ROUTE as RouteDefinition, fx.apiKey, {
      pathParameters: { listing_id: fx.floorListingId },
    });
    return { event, generic: false };
  }
  if (bundle.kind === 'http') {
    const route = routes.find((r) => r.operationId === bundle.name);
    if (!route) throw new Error(`cold start: no route ${bundle.name}`);
    const site = SITE_REQUESTS[bundle.name];
    if (site) return { event: siteEvent(route, fx.siteKey, site(fx, i)), generic: false };
    const known = COLD_REQUESTS[bundle.name];
    const request = known ? known(fx, i) : fallbackRequest(route, fx);
    return { event: apiEvent(route, fx.apiKey, request), generic: !known && route.method !== 'GET' };
  }
  if (bundle.entry === 'functions/streams/consumer.ts' || bundle.kind === 'stream') {
    // The fixture listing as stored, and the same with an AI enrichment requested: the consumer
    // queues the enrichment (the outbox pattern), one write.
    const { Item } = await benchDocumentClient(dynamoEndpoint).send(
      new GetCommand({ TableName: BENCH_TABLE, Key: fx.propertyKey }),
    );
    if (!Item) throw new Error('cold start: the fixture listing is gone');
    const requested = { ...Item, enrichmentStatus: 'pending', enrichmentRequestId: randomUUID() };
    return {
      event: { Records: [streamRecord(Item, requested, i)] },
      generic: bundle.entry !== 'functions/streams/consumer.ts',
    };
  }
  const workerMessage = WORKER_MESSAGES[bundle.entry];
  if (workerMessage) return { event: sqsEvent(workerMessage(fx, i), bundle.name), generic: false };
  if (bundle.entry === 'functions/workers/ai.ts') {
    const body = JSON.stringify({
      type: 'score',
      tenantId: fx.tenantId,
      leadId: fx.leadId,
      requestedAt: new Date().toISOString(),
    });
    const messageId = randomUUID();
    return {
      event: {
        Records: [
          {
            messageId,
            receiptHandle: `bench-${messageId}`,
            body,
            attributes: {
              ApproximateReceiveCount: '1',
              SentTimestamp: String(Date.now()),
              SenderId: 'bench',
              ApproximateFirstReceiveTimestamp: String(Date.now()),
            },
            messageAttributes: {},
            md5OfBody: '',
            eventSource: 'aws:sqs',
            eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ai-queue',
            awsRegion: 'us-east-1',
          },
        ],
      },
      generic: false,
    };
  }
  // The resume job's schedule, and the guess for any other worker: an EventBridge scheduled event.
  return {
    event: {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/bench'],
      detail: {},
    },
    generic: bundle.entry !== 'functions/workers/ai-resume.ts',
  };
}

/**
 * What each fresh process runs. The event is read before the clock starts; the answer is summed up
 * as an HTTP status, or `ok` / `N failed` for a batch, or `threw`. The last stdout line is the
 * result (the handler's own log lines come before it); the process exits at once, as a Lambda
 * sandbox is frozen, rather than waiting for the SDK's idle sockets.
 */
const PROBE = `
const { readFileSync } = await import('node:fs');
const [url, eventFile, name] = process.argv.slice(1);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = {
  callbackWaitsForEmptyEventLoop: false, functionName: name, functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:' + name, memoryLimitInMB: '1024',
  awsRequestId: crypto.randomUUID(), logGroupName: '/aws/lambda/' + name, logStreamName: 'bench',
  getRemainingTimeInMillis: () => 29000, done() {}, fail() {}, succeed() {},
};
const cpuStart = process.cpuUsage();
const started = performance.now();
const module = await import(url);
const imported = performance.now();
const cpuImported = process.cpuUsage(cpuStart);
let status;
try {
  const answer = await module.handler(event, context);
  if (answer && typeof answer.statusCode === 'number') status = String(answer.statusCode);
  else if (answer && Array.isArray(answer.batchItemFailures))
    status = answer.batchItemFailures.length ? answer.batchItemFailures.length + ' failed' : 'ok';
  else status = 'ok';
} catch (error) {
  status = 'threw: ' + String(error && error.message || error).slice(0, 200);
}
const answered = performance.now();
const cpuAnswered = process.cpuUsage(cpuStart);
const cpuMs = (usage) => (usage.user + usage.system) / 1000;
process.stdout.write('\\n' + JSON.stringify({ importMs: imported - started, firstMs: answered - started, importCpuMs: cpuMs(cpuImported), firstCpuMs: cpuMs(cpuAnswered), status }) + '\\n', () => process.exit(0));
`;

export interface ColdSample {
  importMs: number;
  firstMs: number;
  /**
   * The same spans in CPU time of the process (user + system, all its threads): what the function
   * itself burns, which a neighbour's load on shared cores stretches far less than the wall clock.
   */
  importCpuMs: number;
  firstCpuMs: number;
  status: string;
  /** The AWS services (besides DynamoDB) the process called, e.g. `SQS`; `refused` for a call the responder did not answer. */
  sent: string[];
}

/** The services whose count grew between two snapshots of the responder's calls. */
export function servicesCalled(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.keys(after)
    .filter((service) => (after[service] ?? 0) > (before[service] ?? 0))
    .sort();
}

/**
 * One fresh process, run as in Lambda (coldStartEnv): imports the bundle, serves the event, reports
 * its own timings; the responder's calls during the process say which AWS clients it used.
 */
export async function probeOnce(
  bundle: BundleResult,
  eventFile: string,
  dynamoEndpoint: string,
  responder: AwsResponder,
  cursorKey: CursorKeySource = 'env',
): Promise<ColdSample> {
  const before = responder.calls();
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pathToFileURL(bundle.file).href, eventFile, bundle.name],
    {
      env: coldStartEnv(
        dynamoEndpoint,
        { endpoints: awsEndpointEnv(responder.origins), aiQueueUrl: responderQueueUrl(responder.origins) },
        bundle.name,
        cursorKey,
      ),
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const sent = servicesCalled(before, responder.calls());
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const sample = JSON.parse(last) as Omit<ColdSample, 'sent'>;
    if (Number.isFinite(sample.importMs) && Number.isFinite(sample.firstMs)) {
      // A call the responder refused is a failed sample whatever the handler answered.
      return {
        ...sample,
        status: sent.includes('refused') ? `${sample.status} (refused AWS call)` : sample.status,
        sent,
      };
    }
  } catch {
    // reported below
  }
  throw new Error(`cold-start probe for ${bundle.name} printed "${last}"`);
}

export interface ColdFigures {
  moduleLoad: Summary;
  firstResponse: Summary;
  /** CPU time of the same spans (see ColdSample). */
  moduleLoadCpu: Summary;
  firstResponseCpu: Summary;
  /** Distinct answers over the samples, e.g. `200` or `201`; anything but 2xx / ok is flagged. */
  statuses: string[];
  /** The AWS services besides DynamoDB the function called in any sample (SQS, SESv2, …). */
  sent: string[];
  /** The event was the bench's guess (a function no case here knows). */
  genericEvent: boolean;
}

/** The floor is probed this often within a pass, so its samples span the pass like the functions'. */
export const FLOOR_EVERY = 8;

/**
 * `runs` passes over every function, one process at a time, after one discarded pass that warms the
 * OS file cache (and the fixture's first write paths). Within a pass the floor is probed before
 * every FLOOR_EVERY functions: a burst of load from a neighbour on the shared cores then lands on
 * the floor as much as on the functions it is compared with.
 */
export async function measureColdStart(
  bundles: readonly BundleResult[],
  fx: ColdFixture,
  runs: number,
  dynamoEndpoint: string,
  eventDir: string,
  log: (line: string) => void,
  cursorKey: CursorKeySource = 'env',
): Promise<Map<string, ColdFigures>> {
  rmSync(eventDir, { recursive: true, force: true });
  mkdirSync(eventDir, { recursive: true });
  const floor = bundles.find((b) => b.kind === 'floor');
  if (!floor) throw new Error('cold start: the floor was not bundled');
  const functions = bundles.filter((b) => b.kind !== 'floor');
  const samples = new Map<string, ColdSample[]>(bundles.map((b) => [b.name, []]));
  const generic = new Set<string>();
  const responder = await startAwsResponder();

  const probe = async (bundle: BundleResult, i: number, keep: boolean) => {
    const { event, generic: guessed } = await coldEvent(bundle, fx, i, dynamoEndpoint);
    if (guessed) generic.add(bundle.name);
    const file = resolve(eventDir, `${bundle.name}-${i}.json`);
    writeFileSync(file, JSON.stringify(event));
    const sample = await probeOnce(bundle, file, dynamoEndpoint, responder, cursorKey);
    if (keep) samples.get(bundle.name)?.push(sample);
  };

  try {
    for (let pass = 0; pass <= runs; pass++) {
      const keep = pass > 0;
      for (const [index, bundle] of functions.entries()) {
        if (index % FLOOR_EVERY === 0) await probe(floor, pass, keep);
        await probe(bundle, pass, keep);
      }
      log(keep ? `  cold-start pass ${pass}/${runs}` : '  cold-start warm-up pass (discarded)');
    }
  } finally {
    await responder.stop();
  }

  return new Map(
    [...samples.entries()].map(([name, list]) => [
      name,
      {
        moduleLoad: summarize(list.map((s) => s.importMs)),
        firstResponse: summarize(list.map((s) => s.firstMs)),
        moduleLoadCpu: summarize(list.map((s) => s.importCpuMs)),
        firstResponseCpu: summarize(list.map((s) => s.firstCpuMs)),
        statuses: [...new Set(list.map((s) => s.status))].sort(),
        sent: [...new Set(list.flatMap((s) => s.sent))].sort(),
        genericEvent: generic.has(name),
      },
    ]),
  );
}
