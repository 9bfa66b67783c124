/**
 * The cold-start section's Tenant, and the event each function serves: the route's usual successful
 * request, a stream record, the message each queue's producer sends, the schedule's event. Made in
 * this process, through the service's handlers and services, between the samples (a request that
 * uses its target up gets a fresh one). A route added since gets the fixture's ids by path parameter
 * name (a write a guessed `{}` body), and the table shows what it answered.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { RouteDefinition } from '../../../functions/pipeline/route.ts';
import { type OperationId, routeFor } from '../../../functions/routes.ts';
import { benchClient } from '../bulk.ts';
import {
  apiEvent,
  type BenchFixture,
  type BenchRequest,
  invoke,
  siteRequest,
  sqsEvent,
} from '../dynamo-costs.ts';
import { BENCH_TABLE, startLocalStores } from '../env.ts';
import { floorListing } from '../floor/listing.ts';

export type ColdFixture = BenchFixture & { endpoint: string; ids: Record<string, string> };
const CRITERIA = { listing_type: 'sale', place_codes: ['ES-MA-MAR'], notes: 'Sea view' };
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const uuid = () => randomUUID().slice(0, 8);
const hooks = 'https://hooks.bench.example';
const photos = 'https://photos.bench.example';

/** An id (or `field`) of a request's answer, through its handler; a failure stops the section. */
async function made(fx: BenchFixture, op: OperationId, request: BenchRequest, field = 'id') {
  const res = await invoke(op, fx.apiKey, request);
  if (res.statusCode >= 300) throw new Error(`cold-start fixture ${op}: ${res.statusCode} ${res.body}`);
  return String((JSON.parse(res.body ?? '{}') as Record<string, unknown>)[field]);
}
const lead = (fx: BenchFixture) =>
  made(fx, 'createLead', { body: { name: 'C', email: `c-${uuid()}@x.example` } });
const webhook = () => ({ url: `${hooks}/${uuid()}`, events: ['lead.created'] });
const hook = (fx: BenchFixture) => made(fx, 'createWebhookSubscription', { body: webhook() });
const ping = (fx: ColdFixture) => made(fx, 'testWebhook', { pathParameters: fx.ids });
const photoUrl = () => ({ url: `${photos}/${uuid()}.jpg` });
const photo = (fx: ColdFixture) =>
  made(fx, 'importPropertyImage', { pathParameters: fx.ids, body: photoUrl() });

/** A gallery photo through the import worker's own service function, on a local S3. */
async function image(fx: ColdFixture): Promise<string> {
  const { importPhoto } = await import('../../../functions/services/photo-processing.ts');
  const stop = await startLocalStores();
  const body = Buffer.from(PNG, 'base64');
  const added = await importPhoto(
    fx.tenantId,
    fx.propertyId,
    { importId: uuid(), attempt: 1, body, contentType: 'image/png' },
    {},
  );
  await stop();
  if (!added.ok) throw new Error(`cold-start photo: ${added.reason} ${added.detail}`);
  return added.image.id;
}

async function stored(fx: ColdFixture) {
  const get = new GetCommand({ TableName: BENCH_TABLE, Key: fx.propertyKey });
  const { Item } = await benchClient(fx.endpoint).send(get);
  if (!Item) throw new Error('cold start: the fixture listing is gone');
  return Item;
}

/** One of each resource the routes read, by path parameter name, and the floor's item. */
export async function seedColdFixture(base: BenchFixture, endpoint: string): Promise<ColdFixture> {
  const ids: Record<string, string> = {
    property_id: base.propertyId,
    agent_id: base.agentIds[0] ?? '',
    floor: uuid(),
  };
  const fx = { ...base, endpoint, ids };
  ids.lead_id = await lead(fx);
  const person = { name: 'Cold', email: `c-${uuid()}@example.com` };
  const inquiry = {
    source: 'bench',
    type: 'inquiry',
    person,
    message: 'Free?',
    property_id: base.propertyId,
  };
  ids.inquiry_id = await made(fx, 'ingestLead', { body: inquiry }, 'inquiry_id');
  const note = { kind: 'note', title: 'Called back' };
  ids.activity_id = await made(fx, 'createActivity', { pathParameters: ids, body: note });
  await made(fx, 'putLeadCriteria', { pathParameters: ids, body: CRITERIA }, 'lead_id');
  ids.internal_ref = `COLD-${ids.floor}`;
  await made(fx, 'upsertPropertyByRef', { pathParameters: ids, body: { title: 'Cold by reference' } });
  [ids.endpoint_id, ids.import_id, ids.image_id] = [await hook(fx), await photo(fx), await image(fx)];
  ids.slug = await made(fx, 'getProperty', { pathParameters: ids }, 'slug');
  const slugs = [['location', 'listSiteLocations', 'place'] as const, ['agent', 'listSiteAgents'] as const];
  for (const [name, op, kind] of slugs) {
    const answer = (await invoke(op, '', siteRequest(fx.siteKey))).body ?? '{}';
    const { items } = JSON.parse(answer) as { items: { slug: string; kind?: string }[] };
    ids[name] = items.find((item) => kind === undefined || item.kind === kind)?.slug ?? '';
  }
  // The events log is the stream consumer's: its events processor, run on the listing's creation.
  const { eventsOf } = await import('../../../functions/streams/events.ts');
  const { putEvent } = await import('../../../functions/data/events.ts');
  const newImage = await stored(fx);
  const entity = String(newImage.__edb_e__);
  const events = await eventsOf({ eventId: uuid(), kind: 'INSERT', entity, oldImage: undefined, newImage });
  await Promise.all(events.map(putEvent));
  ids.event_id = events[0]?.id ?? '';
  const floor = { id: ids.floor ?? '', title: 'Floor villa', updatedAt: new Date().toISOString() };
  await floorListing({ table: BENCH_TABLE, client: benchClient(endpoint) })
    .put(floor)
    .go();
  return fx;
}

/** A route's sample: other ids than the fixture's (a fresh target to use up), and a body. */
type Sample = { ids?: Record<string, string>; body?: unknown };
type Request = (fx: ColdFixture, i: number) => Sample | Promise<Sample>;
const fresh =
  (name: string, make: (fx: ColdFixture) => Promise<string>): Request =>
  async (fx) => ({
    ids: { [name]: await make(fx) },
  });
const listing = (fx: ColdFixture) => made(fx, 'createProperty', { body: { title: 'Cold to archive' } });
const walkIn = () => ({ name: 'Walk-in', email: `walk-${uuid()}@example.com` });

/** The writes, with their bodies or fresh targets; any GET or DELETE reads the fixture's ids. */
const REQUESTS: Partial<Record<OperationId, Request>> = {
  createProperty: (_fx, i) => ({ body: { title: `Cold flat ${i}`, price: '250000' } }),
  updateProperty: (_fx, i) => ({ body: { price: String(450000 + i * 1000) } }),
  archiveProperty: fresh('property_id', listing),
  upsertPropertyByRef: (_fx, i) => ({ body: { title: `Cold by reference v${i}` } }),
  createLead: () => ({ body: walkIn() }),
  ingestLead: (fx) => ({
    body: {
      source: 'bench',
      type: 'inquiry',
      person: walkIn(),
      message: 'Visit?',
      property_id: fx.propertyId,
    },
  }),
  updateLead: (_fx, i) => ({ body: { notes: `Cold note ${i}` } }),
  archiveLead: fresh('lead_id', lead),
  createActivity: (_fx, i) => ({ body: { kind: 'note', title: `Cold note ${i}` } }),
  updateActivity: (_fx, i) => ({ body: { title: `Called back, v${i}` } }),
  linkLeadProperty: (fx) => ({ body: { property_id: fx.propertyId, role: 'interested' } }),
  putLeadCriteria: () => ({ body: CRITERIA }),
  sendLeadMatches: (fx) => ({ body: { property_ids: [fx.propertyId] } }),
  importPropertyImage: () => ({ body: photoUrl() }),
  createPropertyImageUpload: () => ({ body: { content_type: 'image/png', size_bytes: 2048 } }),
  // Alternating, so that every sample changes the gallery (an unchanged one writes nothing).
  updatePropertyImage: (_fx, i) => ({ body: { sort_order: i % 2 === 0 ? 0 : 100 } }),
  deletePropertyImage: fresh('image_id', image),
  createWebhookSubscription: () => ({ body: webhook() }),
  updateWebhook: () => ({ body: { enabled: true } }),
  deleteWebhookSubscription: fresh('endpoint_id', hook),
  redeliverWebhookDelivery: fresh('delivery_id', ping),
  testWebhook: () => ({}),
  rotateWebhookSecret: () => ({}),
  countSitePropertyView: () => ({}),
};
/** Site routes by slug: the fixture listing's, its Place's, its Agent's. */
const SLUGS: Partial<Record<OperationId, string>> = {
  getSitePropertyBySlug: 'slug',
  listSimilarBySlug: 'slug',
  countSitePropertyView: 'slug',
  getSiteLocation: 'location',
  getSiteAgentBySlug: 'agent',
};
/** The queue workers' messages, as their producers send them. */
const MESSAGES: Record<string, (fx: ColdFixture) => Promise<unknown>> = {
  'functions/workers/ai.ts': async ({ tenantId, ids }) => {
    return { type: 'score', tenantId, leadId: ids.lead_id, requestedAt: new Date().toISOString() };
  },
  'functions/workers/image-import.ts': async (fx) => {
    const importId = await photo(fx);
    return { type: 'import', tenantId: fx.tenantId, propertyId: fx.propertyId, importId, attempt: 1 };
  },
  'functions/workers/webhook-delivery.ts': async (fx) => {
    const { getDelivery } = await import('../../../functions/data/webhooks.ts');
    const deliveryId = await ping(fx);
    const token = (await getDelivery(fx.tenantId, deliveryId))?.sendRequestId;
    return { tenantId: fx.tenantId, endpointId: fx.ids.endpoint_id, deliveryId, trigger: 'test', token };
  },
};

/** The path parameters of `route`, by name, from `ids`. */
export function pathOf(route: Pick<RouteDefinition, 'path'>, ids: Record<string, string>) {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
  return Object.fromEntries(names.map((n) => [n, ids[n] ?? `bench-${n}`]));
}

/** A DynamoDB stream record of the fixture listing with an AI enrichment requested. */
async function enrichmentRequested(fx: ColdFixture, i: number) {
  const item = await stored(fx);
  const next = { ...item, enrichmentStatus: 'pending', enrichmentRequestId: randomUUID() };
  const image = (value: object) =>
    marshall(value, { removeUndefinedValues: true, convertClassInstanceToMap: true });
  const change = {
    Keys: marshall({ pk: item.pk, sk: item.sk }),
    OldImage: image(item),
    NewImage: image(next),
  };
  const dynamodb = { ...change, SequenceNumber: String(1e20 + i), StreamViewType: 'NEW_AND_OLD_IMAGES' };
  return { Records: [{ eventID: randomUUID(), eventName: 'MODIFY', eventSource: 'aws:dynamodb', dynamodb }] };
}

/** The event of sample `i` for one function; `guessed` when no case here knows it. */
export async function coldEvent(
  fn: { name: string; entry: string; kind: string },
  fx: ColdFixture,
  i: number,
) {
  if (fn.kind === 'floor') {
    const floor = { method: 'GET', path: '/floor/{listing_id}' } as RouteDefinition;
    return {
      event: apiEvent(floor, fx.apiKey, { pathParameters: { listing_id: fx.ids.floor ?? '' } }),
      guessed: false,
    };
  }
  if (fn.kind === 'http') {
    const route = routeFor(fn.name as OperationId);
    const operation = route.operationId as OperationId;
    const own = await REQUESTS[operation]?.(fx, i);
    const slug = SLUGS[operation];
    const pathParameters = pathOf(route, {
      ...fx.ids,
      ...(slug && { slug: fx.ids[slug] ?? '' }),
      ...own?.ids,
    });
    // A write with no case of its own sends a guessed `{}`.
    const guessed = !own && !['GET', 'DELETE'].includes(route.method);
    const request = {
      pathParameters,
      ...(own?.body !== undefined || guessed ? { body: own?.body ?? {} } : {}),
    };
    if (route.scope !== 'publishable') return { event: apiEvent(route, fx.apiKey, request), guessed };
    return { event: apiEvent(route, '', siteRequest(fx.siteKey, request)), guessed };
  }
  // The stream consumer queues the enrichment (the outbox pattern): one write.
  if (fn.kind === 'stream')
    return { event: await enrichmentRequested(fx, i), guessed: fn.entry !== 'functions/streams/consumer.ts' };
  const message = MESSAGES[fn.entry];
  if (fn.kind === 'queue')
    return { event: sqsEvent(message ? await message(fx) : {}, fn.name), guessed: !message };
  // A schedule's event a minute past: a run whose window has closed makes one pass (the catalogue
  // rebuilder would otherwise go on for its whole window).
  return {
    event: { 'detail-type': 'Scheduled Event', time: new Date(Date.now() - 60_000).toISOString() },
    guessed: false,
  };
}
