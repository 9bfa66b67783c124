/**
 * One object of each kind for a Tenant, made through the HTTP interface itself (Agents, which the
 * interface only reads, through the service the admin CLI uses), keyed by the path-parameter name
 * that addresses it. Shared by the fuzz and isolation tests.
 */
import fc from 'fast-check';
import { Agent, fetch as undiciFetch } from 'undici';
import { runImport } from '../../functions/services/photo-processing.ts';
import { LOCAL_S3_CREDENTIALS } from '../../scripts/local/adapters/local-photo-store.ts';
import { pngFile } from '../../scripts/local/image-files.ts';
import { asFunction, WORKER_ENTRIES } from './aws-operations.ts';
import { createTestAgent } from './factories.ts';
import { arbitraryFor, type JsonSchema } from './fuzz-schema.ts';
import type { TestApi } from './http.ts';
import { startTestStreamConsumer } from './stream.ts';
import { strictS3Put } from './strict-s3.ts';

/** How long the fixture waits for the stream consumer to log the Tenant's first event. */
const EVENT_WAIT_MS = 60_000;

/** Ids by path-parameter name (`lead_id`, `property_id`, …), plus `internal_ref` for the by-ref route. */
export type TenantObjects = Record<string, string>;

async function created(api: TestApi, key: string, method: string, path: string, body: unknown) {
  const res = await api.call(method, path, { key, body });
  if (res.status !== 200 && res.status !== 201) {
    throw new Error(`fixture ${method} ${path} → ${res.status} ${res.text}`);
  }
  return res.body;
}

/**
 * Makes a Property (with an internal_ref, a gallery photo and a pending photo import), an Agent, a Lead (with an Inquiry, an Activity, a linked
 * Property and criteria), a webhook endpoint and its test delivery for the Tenant whose full-scope key is
 * `key`, and an event: an event exists only once the stream consumer has read a change, so the real
 * consumer runs behind the local stream poller (for this Tenant's records only) until the Tenant's
 * first event is logged, and is stopped before the objects are handed over (nothing changes them after).
 */
export async function createTenantObjects(
  api: TestApi,
  key: string,
  tenantId: string,
): Promise<TenantObjects> {
  const consumer = await startTestStreamConsumer([tenantId]);
  try {
    return { ...(await createObjects(api, key, tenantId)), event_id: await firstEventId(api, key) };
  } finally {
    consumer.stop();
  }
}

/** The id of the Tenant's first logged event, once the consumer has logged one. */
async function firstEventId(api: TestApi, key: string): Promise<string> {
  const deadline = Date.now() + EVENT_WAIT_MS;
  for (;;) {
    const res = await api.call('GET', '/v1/events?limit=1', { key });
    const id = (res.body as { data?: { id: string }[] } | undefined)?.data?.[0]?.id;
    if (res.status === 200 && id) return id;
    if (Date.now() > deadline)
      throw new Error(`fixture: no event logged for the Tenant (${res.status} ${res.text})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The photo import worker's service, run as its function (its AWS operations recorded under its name). */
const runPhotoImport = asFunction(WORKER_ENTRIES.imageImport, (message: Parameters<typeof runImport>[0]) =>
  runImport(message),
);

/**
 * Confirms an upload and runs the photo import worker on the import it became, as the worker does
 * (no worker polls the queue in these tests): the photo, processing at once, then ready with its
 * renditions (its import has its id).
 */
export async function confirmIntoGallery(
  api: TestApi,
  key: string,
  tenantId: string,
  propertyId: string,
  objectKey: string,
): Promise<{ id: string }> {
  const confirmed = await api.call('POST', `/v1/properties/${propertyId}/images`, {
    key,
    body: { object_key: objectKey },
  });
  if (confirmed.status !== 201 && confirmed.status !== 200)
    throw new Error(`fixture confirm → ${confirmed.status} ${confirmed.text}`);
  await runPhotoImport({ type: 'import', tenantId, propertyId, importId: confirmed.body.id, attempt: 1 });
  const done = await api.call('GET', `/v1/properties/${propertyId}/images:import/${confirmed.body.id}`, {
    key,
  });
  if (!done.body.image) throw new Error(`fixture upload never joined the gallery (${done.text})`);
  return done.body.image;
}

/** A fresh connection per PUT: s3rver closes idle keep-alive connections on its own timer. */
const freshConnections = new Agent({ pipelining: 0 });
const putToS3 = strictS3Put(
  LOCAL_S3_CREDENTIALS,
  (url, init) => undiciFetch(url, { ...init, dispatcher: freshConnections }) as unknown as Promise<Response>,
);

/**
 * A gallery photo of the listing, by the upload route (mint, PUT to the local S3 as S3 would take it,
 * confirm, the worker's renditions), and a pending photo import (a public IP literal: no import
 * worker runs in these tests).
 */
async function createPhotos(api: TestApi, key: string, tenantId: string, propertyId: string, tag: string) {
  const png = pngFile(8, 6);
  const minted = await created(api, key, 'POST', `/v1/properties/${propertyId}/images/uploads`, {
    content_type: 'image/png',
    size_bytes: png.length,
  });
  const put = await putToS3(minted.url, { method: 'PUT', headers: minted.headers, body: png });
  if (put.status !== 200) throw new Error(`fixture upload PUT → ${put.status} ${await put.text()}`);
  const image = await confirmIntoGallery(api, key, tenantId, propertyId, minted.object_key);
  const imported = await api.call('POST', `/v1/properties/${propertyId}/images:import`, {
    key,
    body: { url: `https://93.184.216.34/photos/${tag}.jpg` },
  });
  if (imported.status !== 202) throw new Error(`fixture import → ${imported.status} ${imported.text}`);
  return { image_id: image.id as string, import_id: imported.body.id as string };
}

async function createObjects(api: TestApi, key: string, tenantId: string): Promise<TenantObjects> {
  const tag = Math.random().toString(36).slice(2, 10);
  const agent = await createTestAgent(tenantId, `Fixture Agent ${tag}`);
  const property = await created(api, key, 'POST', '/v1/properties', {
    title: `Fixture flat ${tag}`,
    internal_ref: `FIX-${tag}`,
    price: '250000',
    currency: 'EUR',
    listing_type: 'sale',
    bedrooms: 2,
  });
  const photos = await createPhotos(api, key, tenantId, property.id, tag);
  const ingested = await created(api, key, 'POST', '/v1/leads:ingest', {
    source: 'fixture',
    type: 'inquiry',
    person: { name: `Fixture Buyer ${tag}`, email: `buyer-${tag}@example.com` },
    message: 'Is it still available?',
    property_id: property.id,
  });
  const leadId: string = ingested.lead.id;
  const activity = await created(api, key, 'POST', `/v1/leads/${leadId}/activities`, {
    kind: 'note',
    title: `Fixture note ${tag}`,
  });
  // Owned by the Agent, so that the `owner` filter finds it.
  await created(api, key, 'PATCH', `/v1/leads/${leadId}`, { assigned_agent_id: agent.id });
  await created(api, key, 'POST', `/v1/leads/${leadId}/properties`, {
    property_id: property.id,
    role: 'owner',
  });
  await created(api, key, 'PUT', `/v1/leads/${leadId}/criteria`, { listing_type: 'sale', min_beds: 1 });
  if (!ingested.inquiry_id) throw new Error(`fixture ingest made no inquiry: ${JSON.stringify(ingested)}`);
  // A public IP literal: creation checks the address without a DNS lookup, and nothing is ever sent
  // (no delivery worker runs in these tests), so the test delivery stays pending.
  const endpoint = await created(api, key, 'POST', '/v1/webhooks/subscriptions', {
    url: `https://93.184.216.34/hooks/${tag}`,
    events: ['lead.created', 'property.updated'],
  });
  const delivery = await api.call('POST', `/v1/webhooks/${endpoint.id}/test`, { key });
  if (delivery.status !== 202) throw new Error(`fixture test delivery → ${delivery.status} ${delivery.text}`);
  return {
    property_id: property.id,
    internal_ref: property.internal_ref,
    lead_id: leadId,
    inquiry_id: ingested.inquiry_id,
    activity_id: activity.id,
    agent_id: agent.id,
    endpoint_id: endpoint.id,
    delivery_id: delivery.body.id,
    ...photos,
  };
}

/**
 * A request body of only the required fields of `schema` (an operation's body in docs/openapi.json),
 * sampled with a fixed seed; fields named like a fixture take that fixture's id. Undefined: no body.
 */
export function requiredBodySample(schema: JsonSchema | undefined, objects: TenantObjects): unknown {
  if (!schema) return undefined;
  const required = {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(schema.properties ?? {}).filter(([name]) => (schema.required ?? []).includes(name)),
    ),
  };
  const ids = Object.fromEntries(Object.entries(objects).map(([name, id]) => [name, [id]]));
  return fc.sample(arbitraryFor(required, '', ids), { seed: 1, numRuns: 1 })[0];
}
