/**
 * The cold-start section's Tenant, and the event each function serves, made through the service's
 * handlers between the samples: a request that uses its target up gets a fresh one each sample.
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
  siteRequest,
  sqsEvent,
  succeed,
} from '../dynamo-costs.ts';
import { BENCH_TABLE, startLocalStores } from '../env.ts';
import { floorListing } from '../floor/handler.ts';

export type ColdFixture = BenchFixture & { endpoint: string; ids: Record<string, string> };
const CRITERIA = { listing_type: 'sale', place_codes: ['ES-MA-MAR'], notes: 'Sea view' };
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const uuid = () => randomUUID().slice(0, 8);
const hooks = 'https://hooks.bench.example';
const photos = 'https://photos.bench.example';

/** An id (or `field`) of a request's answer, through its handler; a failure stops the section. */
const made = async (fx: BenchFixture, op: OperationId, request: BenchRequest, field = 'id') =>
  String((await succeed(op, fx.apiKey, request))[field]);
const lead = (fx: BenchFixture) =>
  made(fx, 'createLead', { body: { name: 'C', email: `c-${uuid()}@x.example` } });
const webhook = () => ({ url: `${hooks}/${uuid()}`, events: ['lead.created'] });
const hook = (fx: BenchFixture) => made(fx, 'createWebhookSubscription', { body: webhook() });
const ping = (fx: ColdFixture) => made(fx, 'testWebhook', { pathParameters: fx.ids });
const photoUrl = () => ({ url: `${photos}/${uuid()}.jpg` });
const photo = (fx: ColdFixture) =>
  made(fx, 'importPropertyImage', { pathParameters: fx.ids, body: photoUrl() });
const walkIn = () => ({ name: 'Walk-in', email: `walk-${uuid()}@example.com` });
/** A new contact's Inquiry about the fixture listing, as a portal sends it. */
const inquiry = (fx: BenchFixture, message: string) => {
  const about = { message, property_id: fx.propertyId };
  return { body: { source: 'bench', type: 'inquiry', person: walkIn(), ...about } };
};

/** A gallery photo through the import worker's own service function, on a local S3. */
async function image(fx: ColdFixture): Promise<string> {
  const { importPhoto } = await import('../../../functions/services/photo-processing.ts');
  const stop = await startLocalStores();
  const png = {
    importId: uuid(),
    attempt: 1,
    body: Buffer.from(PNG, 'base64'),
    contentType: 'image/png' as const,
  };
  const added = await importPhoto(fx.tenantId, fx.propertyId, png, {});
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
  ids.inquiry_id = await made(fx, 'ingestLead', inquiry(fx, 'Free?'), 'inquiry_id');
  const note = { kind: 'note', title: 'Called back' };
  ids.activity_id = await made(fx, 'createActivity', { pathParameters: ids, body: note });
  await made(fx, 'putLeadCriteria', { pathParameters: ids, body: CRITERIA }, 'lead_id');
  ids.internal_ref = `COLD-${ids.floor}`;
  await made(fx, 'upsertPropertyByRef', { pathParameters: ids, body: { title: 'Cold by reference' } });
  [ids.endpoint_id, ids.import_id, ids.image_id] = [await hook(fx), await photo(fx), await image(fx)];
  ids.slug = await made(fx, 'getProperty', { pathParameters: ids }, 'slug');
  const slugs = [['location', 'listSiteLocations', 'place'] as const, ['agent', 'listSiteAgents'] as const];
  for (const [name, op, kind] of slugs) {
    const { items } = (await succeed(op, '', siteRequest(fx.siteKey))) as {
      items?: { slug: string; kind?: string }[];
    };
    ids[name] = items?.find((item) => kind === undefined || item.kind === kind)?.slug ?? '';
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
function fresh(name: string, make: (fx: ColdFixture) => Promise<string>): Request {
  return async (fx) => ({ ids: { [name]: await make(fx) } });
}
const listing = (fx: ColdFixture) => made(fx, 'createProperty', { body: { title: 'Cold to archive' } });

/**
 * The requests with a body or a fresh target, and the site routes by another slug than the fixture
 * listing's (its Place's, its Agent's); any other request is the fixture's ids and no body.
 */
const REQUESTS: Partial<Record<OperationId, Request>> = {
  createProperty: (_fx, i) => ({ body: { title: `Cold flat ${i}`, price: '250000' } }),
  updateProperty: (_fx, i) => ({ body: { price: String(450000 + i * 1000) } }),
  archiveProperty: fresh('property_id', listing),
  upsertPropertyByRef: (_fx, i) => ({ body: { title: `Cold by reference v${i}` } }),
  createLead: () => ({ body: walkIn() }),
  ingestLead: (fx) => inquiry(fx, 'Visit?'),
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
  getSiteLocation: ({ ids }) => ({ ids: { slug: ids.location ?? '' } }),
  getSiteAgentBySlug: ({ ids }) => ({ ids: { slug: ids.agent ?? '' } }),
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
  const options = { removeUndefinedValues: true, convertClassInstanceToMap: true };
  const images = { OldImage: marshall(item, options), NewImage: marshall(next, options) };
  const order = { SequenceNumber: String(1e20 + i), StreamViewType: 'NEW_AND_OLD_IMAGES' };
  const dynamodb = { Keys: marshall({ pk: item.pk, sk: item.sk }), ...images, ...order };
  return { Records: [{ eventID: randomUUID(), eventName: 'MODIFY', eventSource: 'aws:dynamodb', dynamodb }] };
}

/** The event of sample `i` for one function. */
export async function coldEvent(
  fn: { name: string; entry: string; kind: string },
  fx: ColdFixture,
  i: number,
) {
  if (fn.kind === 'floor') {
    const floor = { method: 'GET', path: '/floor/{listing_id}' } as RouteDefinition;
    return apiEvent(floor, fx.apiKey, { pathParameters: { listing_id: fx.ids.floor ?? '' } });
  }
  if (fn.kind === 'http') {
    const route = routeFor(fn.name as OperationId);
    const own = await REQUESTS[route.operationId as OperationId]?.(fx, i);
    // A request with no case of its own sends no body: its row shows what that answered.
    const pathParameters = pathOf(route, { ...fx.ids, ...own?.ids });
    const request = { pathParameters, ...(own?.body !== undefined && { body: own.body }) };
    if (route.scope !== 'publishable') return apiEvent(route, fx.apiKey, request);
    return apiEvent(route, '', siteRequest(fx.siteKey, request));
  }
  // The stream consumer queues the enrichment (the outbox pattern): one write.
  if (fn.kind === 'stream') return enrichmentRequested(fx, i);
  if (fn.kind === 'queue') return sqsEvent((await MESSAGES[fn.entry]?.(fx)) ?? {}, fn.name);
  // A schedule's event a minute past: a run whose window has closed makes one pass (the catalogue
  // rebuilder would otherwise go on for its whole window).
  return { 'detail-type': 'Scheduled Event', time: new Date(Date.now() - 60_000).toISOString() };
}
