/**
 * What a generic client written from docs/openapi.json and the guides relies on, one behaviour per
 * describe, on the real local HTTP server (every answer is also checked
 * against the document by test/support/http.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../functions/data/entities/agent.ts';
import { getDelivery } from '../../functions/data/webhooks.ts';
import { TURNSTILE_DUMMY_TOKEN } from '../../functions/kernel/ports/turnstile.ts';
import { createArea } from '../../functions/services/areas.ts';
import { issueSiteKey } from '../../functions/services/site-keys.ts';
import { fanOutEvent, processDeliveryMessage } from '../../functions/services/webhook-deliveries.ts';
import { afterIndexLag, eventually, POLL_MS } from '../support/eventually.ts';
import {
  createTestAgent,
  createTestPlaces,
  createUnthrottledTenants,
  restoreBudgets,
  type TestTenant,
  unique,
} from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer } from '../support/stream.ts';
import { receiver, TestLadder } from '../support/webhook-fixtures.ts';

const document = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  [tenant] = (await createUnthrottledTenants(1)) as [TestTenant];
  api = await startTestApi(tenant.key);
});
afterAll(async () => {
  await api?.close();
  restoreBudgets();
});

/** A webhook endpoint on a public IP literal: nothing is ever sent (no delivery worker runs here). */
async function newEndpoint(events = ['property.updated']) {
  const res = await api.call('POST', '/v1/webhooks/subscriptions', {
    body: { url: `https://93.184.216.34/hooks/${unique('h')}`, events },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

describe('the idempotency fingerprint identifies the request', () => {
  it('the same key and body with another query is refused (422), with the query reordered it replays', async () => {
    // Prepare
    const key = randomUUID();
    const body = { title: `Flat ${unique()}` };
    const first = await api.call('POST', '/v1/properties?lang=en', {
      body,
      headers: { 'idempotency-key': key },
    });
    // Act
    const otherLanguage = await api.call('POST', '/v1/properties?lang=es', {
      body,
      headers: { 'idempotency-key': key },
    });
    const noQuery = await api.call('POST', '/v1/properties', { body, headers: { 'idempotency-key': key } });
    const again = await api.call('POST', '/v1/properties?lang=en', {
      body,
      headers: { 'idempotency-key': key },
    });
    // Assess
    expect(first.status, first.text).toBe(201);
    expect(otherLanguage.status, otherLanguage.text).toBe(422);
    expect(otherLanguage.body.detail[0]).toMatchObject({
      loc: ['header', 'Idempotency-Key'],
      type: 'idempotency_key_reused',
    });
    expect(noQuery.status).toBe(422);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('the webhook lists state their order', () => {
  it('GET /v1/webhooks and …/deliveries say in the document which (field, id) order they follow', () => {
    // Prepare
    const described = (path: string) => document.paths[path].get.responses['200'].description as string;
    // Act
    const endpoints = described('/v1/webhooks');
    const deliveries = described('/v1/webhooks/{endpoint_id}/deliveries');
    // Assess
    expect(endpoints).toMatch(/oldest first by \(created_at, id\)/);
    expect(deliveries).toMatch(/newest first by \(created_at, id\)/);
    expect(deliveries).toMatch(/keeps its place/);
  });
});

describe('a send to a disabled endpoint is a refused state change (422), not a 409', () => {
  it('POST …/test and …:redeliver on a disabled endpoint answer 422 endpoint_disabled', async () => {
    // Prepare
    const endpoint = await newEndpoint();
    const ping = await api.call('POST', `/v1/webhooks/${endpoint.id}/test`);
    expect(ping.status, ping.text).toBe(202);
    const off = await api.call('PATCH', `/v1/webhooks/${endpoint.id}`, { body: { enabled: false } });
    expect(off.status).toBe(200);
    // Act
    const test = await api.call('POST', `/v1/webhooks/${endpoint.id}/test`);
    const redeliver = await api.call(
      'POST',
      `/v1/webhooks/${endpoint.id}/deliveries/${ping.body.id}:redeliver`,
    );
    // Assess
    for (const res of [test, redeliver]) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['path', 'endpoint_id'], msg: expect.stringContaining('disabled'), type: 'endpoint_disabled' },
      ]);
    }
  });
});

describe('one listing, one shape', () => {
  it('GET /v1/properties items carry the Areas GET /v1/properties/{id} carries', async () => {
    // Prepare
    const places = await createTestPlaces();
    const created = await api.call('POST', '/v1/properties', {
      body: { title: `Coast flat ${unique()}`, place_code: places.town.code },
    });
    expect(created.status, created.text).toBe(201);
    const { area } = await createArea({
      tenantId: tenant.tenantId,
      kind: 'region',
      name: 'The Coast',
      placeCodes: [places.region.code],
    });
    await afterIndexLag(); // the list is read through an index, after the test's writes
    // Act
    const single = await api.call('GET', `/v1/properties/${created.body.id}`);
    const items: { id: string; areas: unknown[] }[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = await api.call('GET', `/v1/properties?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      items.push(...page.body.data);
      cursor = page.body.next_cursor;
    }
    // Assess
    expect(single.body.areas).toEqual([{ id: area.id, kind: 'region', name: 'The Coast', via: 'rule' }]);
    expect(items.find((p) => p.id === created.body.id)?.areas).toEqual(single.body.areas);
  });
});

describe('a named Agent that does not become the Owner is warned about (agent_unmatched)', () => {
  const ingest = (body: Record<string, unknown>) =>
    api.call('POST', '/v1/leads:ingest', {
      body: {
        source: 'crm',
        type: 'inquiry',
        person: { name: 'Ana', email: `${unique('ana')}@example.com` },
        ...body,
      },
    });

  it("the listing's Agent wins: warned, with why", async () => {
    // Prepare
    const [listingAgent, named] = await Promise.all([
      createTestAgent(tenant.tenantId, 'Listing Agent'),
      createTestAgent(tenant.tenantId, 'Named Agent'),
    ]);
    const property = await api.call('POST', '/v1/properties', {
      body: { title: `Flat ${unique()}`, agent_id: listingAgent.id },
    });
    // Act
    const res = await ingest({ property_id: property.body.id, agent_id: named.id });
    // Assess
    expect(res.body.lead.assigned_agent_id).toBe(listingAgent.id);
    expect(res.body.warnings).toEqual([
      { code: 'agent_unmatched', detail: expect.stringContaining("the listing's Agent") },
    ]);
  });

  it('the named Agent is inactive: warned, with why', async () => {
    // Prepare
    const named = await createTestAgent(tenant.tenantId, 'Gone Agent');
    await Agent.patch({ tenantId: tenant.tenantId, id: named.id }).set({ isActive: false }).go();
    // Act
    const res = await ingest({ agent_email: named.email });
    // Assess
    expect(res.body.lead.assigned_agent_id).not.toBe(named.id);
    expect(res.body.warnings).toEqual([
      { code: 'agent_unmatched', detail: expect.stringContaining('inactive') },
    ]);
  });

  it('the Lead already has an Owner: warned, with why; the named Agent as Owner: no warning', async () => {
    // Prepare
    const [owner, named] = await Promise.all([
      createTestAgent(tenant.tenantId, 'Owner Agent'),
      createTestAgent(tenant.tenantId, 'Named Agent'),
    ]);
    const email = `${unique('bo')}@example.com`;
    const first = await ingest({ person: { name: 'Bo', email }, agent_id: owner.id });
    // Act
    const second = await ingest({ person: { name: 'Bo', email }, agent_id: named.id });
    // Assess
    expect(first.body.lead.assigned_agent_id).toBe(owner.id);
    expect(first.body.warnings).toEqual([]);
    expect(second.body.lead.assigned_agent_id).toBe(owner.id);
    expect(second.body.warnings).toEqual([
      { code: 'agent_unmatched', detail: expect.stringContaining('already has an Owner') },
    ]);
  });
});

describe('site writes honour Idempotency-Key (scoped to the publishable key)', () => {
  it('a re-submitted form replays the first answer and makes one Inquiry; another body is refused', async () => {
    // Prepare
    const page = 'https://www.agency.example';
    const { key: siteKey } = await issueSiteKey({ tenantId: tenant.tenantId, origins: page });
    const email = `${unique('form')}@example.com`;
    const body = { name: 'Form Visitor', email, message: 'Hello', turnstile: TURNSTILE_DUMMY_TOKEN };
    const key = randomUUID();
    const send = (b: unknown) =>
      api.call('POST', `/v1/site/leads?key=${siteKey}&origin=${encodeURIComponent(page)}`, {
        key: null,
        body: b,
        headers: { origin: page, 'idempotency-key': key },
      });
    // Act
    const first = await send(body);
    const again = await send(body);
    const changed = await send({ ...body, message: 'Hello again' });
    // Assess
    expect(first.status, first.text).toBeLessThan(300);
    expect(again.status).toBe(first.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(changed.status, changed.text).toBe(422);
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const leads = await api.call('GET', `/v1/leads?q=${encodeURIComponent(email)}`);
    expect(leads.body.data).toHaveLength(1);
    const inquiries = await api.call('GET', `/v1/inquiries?lead_id=${leads.body.data[0].id}`);
    expect(inquiries.body.data).toHaveLength(1);
  });
});

describe('the RateLimit examples are in the form the service sends', () => {
  it('the documented RateLimit and RateLimit-Policy examples parse as the real headers do (names unquoted)', async () => {
    // Prepare
    const example = (name: string) =>
      /`([^`]+)`/.exec(document.components.headers[name].description as string)?.[1] ?? '';
    const item = /^[a-z][a-z0-9-]*;r=\d+;t=\d+$/;
    const policy = /^[a-z][a-z0-9-]*;q=\d+;w=\d+(, [a-z][a-z0-9-]*;q=\d+;w=\d+)*$/;
    // Act
    const res = await api.call('GET', '/v1/places?limit=1');
    // Assess
    expect(res.headers.get('ratelimit')).toMatch(item);
    expect(res.headers.get('ratelimit-policy')).toMatch(policy);
    const rateLimit = Object.keys(document.components.headers).filter((h) => h.startsWith('RateLimit'));
    expect(rateLimit).toEqual(expect.arrayContaining(['RateLimit', 'RateLimitPolicy']));
    for (const name of rateLimit) {
      const form = name.startsWith('RateLimitPolicy') ? policy : item;
      expect(example(name), name).toMatch(form);
    }
  });
});

describe('a listing taken back from the archive', () => {
  it('a by-ref PUT leaves an archived listing archived; archived: false brings it back live, with its events', async () => {
    // Prepare
    const places = await createTestPlaces();
    const ref = unique('REF');
    const created = await api.call('PUT', `/v1/properties/by-ref/${ref}`, {
      body: { title: 'Seafront flat', place_code: places.town.code },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect((await api.call('DELETE', `/v1/properties/${id}`)).status).toBe(204);
    const consumer = await startTestStreamConsumer([tenant.tenantId]);
    try {
      // Act
      const plain = await api.call('PUT', `/v1/properties/by-ref/${ref}`, {
        body: { title: 'Seafront flat' },
      });
      const back = await api.call('PUT', `/v1/properties/by-ref/${ref}`, {
        body: { title: 'Seafront flat', archived: false },
      });
      // Assess
      expect(plain.status).toBe(200);
      expect(plain.body.status).toBe('archived');
      expect(back.status, back.text).toBe(200);
      expect(back.body).toMatchObject({ id, status: 'live', archived_at: null, slug: created.body.slug });
      // The list is served by an index: it shows the listing back once the index has it.
      const listedIds = (res: { body: { data: { id: string }[] } }) => res.body.data.map((p) => p.id);
      const listed = await eventually(
        () => api.call('GET', '/v1/properties?limit=200&updated_since=2000-01-01T00:00:00Z'),
        (res) => listedIds(res).includes(id),
      );
      expect(listedIds(listed)).toContain(id);
      const events = await waitFor(async () => {
        const res = await api.call(
          'GET',
          `/v1/events?since=${encodeURIComponent(back.body.updated_at)}&limit=200`,
        );
        const mine = (res.body.data as { type: string; data: { id: string } }[]).filter(
          (e) => e.data.id === id,
        );
        return mine.some((e) => e.type === 'property.went_live') ? mine : undefined;
      });
      const updated = events.find((e) => e.type === 'property.updated') as unknown as {
        data: { changed_fields: string[] };
      };
      expect(updated.data.changed_fields).toEqual(expect.arrayContaining(['status', 'archived_at']));
    } finally {
      consumer.stop();
    }
  }, 90_000);
});

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('waited in vain');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

describe('recover the failed deliveries of an endpoint', () => {
  it('deliveries that fell due while disabled are queued again by POST …/recover (202 with a count)', async () => {
    // Prepare: an event fanned out to the endpoint, falling due while the endpoint is disabled.
    const endpoint = await newEndpoint(['property.updated']);
    const ladder = new TestLadder();
    const envelope = { id: randomUUID(), type: 'property.updated', version: 1, data: {} };
    await fanOutEvent(tenant.tenantId, JSON.stringify(envelope), { ladder });
    const message = ladder.queued.map((q) => q.message).find((m) => m.endpointId === endpoint.id);
    if (!message) throw new Error('no delivery fanned out to the endpoint');
    await api.call('PATCH', `/v1/webhooks/${endpoint.id}`, { body: { enabled: false } });
    const outcome = await processDeliveryMessage(message, {
      ladder,
      send: receiver(200).send,
      delayScale: 1,
    });
    expect(outcome).toBe('endpoint_disabled');
    expect((await getDelivery(tenant.tenantId, message.deliveryId))?.status).toBe('failed');
    const since = new Date(Date.now() - 3600_000).toISOString();
    await afterIndexLag(); // recover finds the failed deliveries through the endpoint's index
    // Act
    const whileDisabled = await api.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { body: { since } });
    await api.call('PATCH', `/v1/webhooks/${endpoint.id}`, { body: { enabled: true } });
    const recovered = await api.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { body: { since } });
    const tooOld = await api.call('POST', `/v1/webhooks/${endpoint.id}/recover`, {
      body: { since: new Date(Date.now() - 31 * 86_400_000).toISOString() },
    });
    // Assess
    expect(whileDisabled.status).toBe(422);
    expect(recovered.status, recovered.text).toBe(202);
    expect(recovered.body).toEqual({ count: 1 });
    const delivery = await getDelivery(tenant.tenantId, message.deliveryId);
    expect(delivery).toMatchObject({ sendRequestTrigger: 'manual' });
    expect(delivery?.sendRequestId).toBeDefined();
    expect(tooOld.status).toBe(422);
    expect(tooOld.body.detail[0]).toMatchObject({ loc: ['body', 'since'], type: 'since_out_of_range' });
  });
});
