/**
 * Every event the service produces validates against the schema docs/openapi.json gives its type,
 * as an integrator's JSON Schema 2020-12 validator reads it (Ajv with ajv-formats, through
 * test/support/contract.ts): each of the 13 event types, delivered to a subscribed receiver and
 * listed by GET /v1/events, and the ping of POST /v1/webhooks/{endpoint_id}/test, against
 * `webhooks[type]`. (Every answer of the API, GET /v1/events included, is checked against its
 * operation's schema by the test client itself: test/support/http.ts.)
 *
 * The changes are made with the request examples of the document (scripts/openapi-examples.ts),
 * with this Tenant's ids in place of the examples' own, so the examples are requests the API takes;
 * the criteria answer keeps each decimal at the scale its example shows.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_TYPES } from '../../functions/domain/events.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { setQueue } from '../../functions/kernel/ports/queue.ts';
import { handler as webhookWorker } from '../../functions/workers/webhook-delivery.ts';
import { startQueuePoller } from '../../scripts/local/queue-poller.ts';
import { OPERATION_EXAMPLES, REQUEST_FIXTURES } from '../../scripts/openapi-examples.ts';
import { RecordingAiQueue } from '../support/ai-queue.ts';
import { eventProblems } from '../support/contract.ts';
import {
  createTestAgent,
  createTestPlaces,
  createTestTenant,
  type TestTenant,
} from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer, TEST_QUEUE_POLL_MS, type TestStreamConsumer } from '../support/stream.ts';
import { startWebhookReceiver, verifiedDelivery, type WebhookReceiver } from '../support/webhook-fixtures.ts';

interface Envelope {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

let api: TestApi;
let tenant: TestTenant;
let consumer: TestStreamConsumer;
let receiver: WebhookReceiver;
let secret: string;
let endpointId: string;
let deliveryPoller: { stop(): void };
/** The AI messages the writes queue: this file runs the scoring of its own Lead. */
const queue = new RecordingAiQueue();

beforeAll(async () => {
  // A delivery whose attempt failed (a fault the tests inject, a receiver slow on a loaded machine) is
  // sent again on the retry ladder: its first rung is longer than this file waits for its deliveries,
  // so the ladder is shrunk here, as the soak shrinks it. What is checked is every payload, not when.
  vi.stubEnv('RETRY_DELAY_SCALE', '0.01');
  resetConfig();
  tenant = await createTestTenant();
  setQueue(queue);
  process.env.LOCAL_ALLOW_PRIVATE_URLS = '1';
  receiver = await startWebhookReceiver();
  deliveryPoller = startQueuePoller({
    queue: 'webhooks',
    handler: webhookWorker,
    intervalMs: TEST_QUEUE_POLL_MS,
  });
  api = await startTestApi(tenant.key);
  consumer = await startTestStreamConsumer([tenant.tenantId]);
  // Subscribed by the key, as an integrator does (the ping of …/test goes to the key's own endpoints).
  const subscribed = await api.call('POST', '/v1/webhooks/subscriptions', {
    body: {
      url: receiver.url,
      events: [...EVENT_TYPES],
    },
  });
  expect(subscribed.status, subscribed.text).toBe(201);
  ({ secret, id: endpointId } = subscribed.body);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  resetConfig();
  consumer?.stop();
  deliveryPoller?.stop();
  receiver?.close();
  setQueue(undefined);
  await api?.close();
});

// The stream consumer and the settle window stand between a write and its event, for 14 events.
vi.setConfig({ testTimeout: 150_000 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A write that must succeed; returns its body. */
async function write(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await api.call(method, path, body === undefined ? {} : { body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** Every event of the Tenant's log, oldest first, following next_cursor. */
async function allEvents(): Promise<Envelope[]> {
  const events: Envelope[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await api.call('GET', `/v1/events?limit=200${suffix}`);
    expect(res.status).toBe(200);
    events.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return events;
}

describe('event payloads against docs/openapi.json', () => {
  it('every event type, delivered and listed, and a ping validate against webhooks[type]', async () => {
    // Prepare: the Tenant's Agents and Places stand in for the examples' ids.
    const [owner, next] = await Promise.all([
      createTestAgent(tenant.tenantId, 'Owner'),
      createTestAgent(tenant.tenantId, 'Next'),
    ]);
    const places = await createTestPlaces();
    // Act: the listing's life (created live, price changed, archived) …
    const listing = await write('POST', '/v1/properties', {
      ...REQUEST_FIXTURES.createProperty,
      place_code: places.town.code,
      agent_id: owner.id,
    });
    await write('PATCH', `/v1/properties/${listing.id}`, REQUEST_FIXTURES.updateProperty);
    // … a Lead ingested about it, moved, reassigned, scored, with a visit done, then archived …
    const ingest = await write('POST', '/v1/leads:ingest', {
      ...REQUEST_FIXTURES.ingestLead,
      person: { ...REQUEST_FIXTURES.ingestLead.person, email: `${randomUUID()}@example.com` },
    });
    const leadId = (ingest.lead as { id: string }).id;
    await write('PATCH', `/v1/leads/${leadId}`, REQUEST_FIXTURES.updateLead);
    await write('PATCH', `/v1/leads/${leadId}`, { assigned_agent_id: next.id });
    const criteria = await write('PUT', `/v1/leads/${leadId}/criteria`, {
      ...REQUEST_FIXTURES.putLeadCriteria,
      place_codes: [places.town.code],
      area_ids: [],
    });
    const activity = await write('POST', `/v1/leads/${leadId}/activities`, {
      ...REQUEST_FIXTURES.createActivity,
      property_id: listing.id,
    });
    await write('PATCH', `/v1/activities/${activity.id}`, REQUEST_FIXTURES.updateActivity);
    const scored = await queue.runScoringOf(leadId, 30_000);
    expect(scored.batchItemFailures).toEqual([]);
    expect((await api.call('DELETE', `/v1/leads/${leadId}`)).status).toBe(204);
    expect((await api.call('DELETE', `/v1/properties/${listing.id}`)).status).toBe(204);
    // … and a ping.
    await write('POST', `/v1/webhooks/${endpointId}/test`);
    // Wait for every type in the log, then for the receiver to have each event and the ping.
    let events: Envelope[] = [];
    for (let i = 0; i < 600; i++) {
      events = await allEvents();
      if (EVENT_TYPES.every((type) => events.some((e) => e.type === type))) break;
      await sleep(200);
    }
    const { received } = receiver;
    const pinged = () => [...received.values()].some((d) => JSON.parse(d.body).type === 'ping');
    for (let i = 0; i < 600 && (events.some((e) => !received.has(e.id)) || !pinged()); i++) await sleep(100);
    // Assess: every type is there, every payload verifies and validates against its type's schema.
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(EVENT_TYPES));
    const delivered = [...received.values()].map((d) => verifiedDelivery(secret, d) as Envelope);
    expect(events.filter((e) => !received.has(e.id)).map((e) => `${e.type} ${e.id}`)).toEqual([]);
    expect(new Set(delivered.map((e) => e.type))).toEqual(new Set([...EVENT_TYPES, 'ping']));
    const problems = [
      ...events.flatMap((e) => eventProblems(e).map((p) => `GET /v1/events: ${p}`)),
      ...delivered.flatMap((e) => eventProblems(e).map((p) => `delivered: ${p}`)),
    ];
    expect(problems).toEqual([]);
    // The criteria example shows the decimals as the service keeps them (the scale each was sent with).
    const example = OPERATION_EXAMPLES.putLeadCriteria?.responses['200'] as Record<string, unknown>;
    expect([criteria.min_price, criteria.max_price, criteria.min_baths]).toEqual([
      example.min_price,
      example.max_price,
      example.min_baths,
    ]);
  });
});
