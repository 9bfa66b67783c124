/**
 * A webhook endpoint belongs to the key that subscribed it: another `webhooks:manage` key of the
 * same Tenant can neither read it nor act on it (read, enable or disable, rotate its secret, send a
 * test, read or redeliver or recover its deliveries, unsubscribe): 404, as for an unknown id, and
 * nothing changes. Endpoints made by the console (the admin CLI) are the console's: keys see them
 * (listed and read, with the events chosen there) but no key manages them or reads their log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEndpoint } from '../../functions/data/webhooks.ts';
import { createEndpoint } from '../../functions/services/webhook-endpoints.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;
/** The key that subscribes, and another key of the same Tenant with the same scopes. */
let owner: string;
let intruder: string;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  owner = (await tenant.newKey(['webhooks:manage', 'leads:read'])).key;
  intruder = (await tenant.newKey(['webhooks:manage', 'leads:read'])).key;
});
afterAll(async () => {
  await api?.close();
});

/** An endpoint on a public IP literal: nothing is ever sent (no delivery worker runs here). */
const hookUrl = () => `https://93.184.216.34/hooks/${unique('h')}`;

/** Every per-endpoint operation, as `key` would send it to endpoint `id` (delivery `deliveryId`). */
function perEndpointCalls(id: string, deliveryId: string) {
  const since = new Date(Date.now() - 60_000).toISOString();
  return [
    ['GET', `/v1/webhooks/${id}`, undefined],
    ['PATCH', `/v1/webhooks/${id}`, { enabled: false }],
    ['PATCH', `/v1/webhooks/${id}`, { enabled: true }],
    ['POST', `/v1/webhooks/${id}/rotate-secret`, undefined],
    ['POST', `/v1/webhooks/${id}/test`, undefined],
    ['GET', `/v1/webhooks/${id}/deliveries`, undefined],
    ['POST', `/v1/webhooks/${id}/deliveries/${deliveryId}:redeliver`, undefined],
    ['POST', `/v1/webhooks/${id}/recover`, { since }],
    ['DELETE', `/v1/webhooks/subscriptions/${id}`, undefined],
  ] as const;
}

describe("another key's endpoint", () => {
  it('answers 404 to every per-endpoint operation of another key, and nothing changes', async () => {
    // Arrange
    const subscribed = await api.call('POST', '/v1/webhooks/subscriptions', {
      key: owner,
      body: { url: hookUrl(), events: ['lead.created'] },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    const id = subscribed.body.id as string;
    const ping = await api.call('POST', `/v1/webhooks/${id}/test`, { key: owner });
    expect(ping.status, ping.text).toBe(202);
    const before = await getEndpoint(tenant.tenantId, id);
    // Act
    const answers = [];
    for (const [method, path, body] of perEndpointCalls(id, ping.body.id)) {
      answers.push([`${method} ${path}`, await api.call(method, path, { key: intruder, body })] as const);
    }
    // Assess
    expect(
      answers.filter(([, res]) => res.status !== 404).map(([call, res]) => `${call} → ${res.status}`),
    ).toEqual([]);
    for (const [, res] of answers) expect(res.text).not.toContain('whsec_');
    const after = await getEndpoint(tenant.tenantId, id);
    expect(after).toEqual(before);
    const deliveries = await api.call('GET', `/v1/webhooks/${id}/deliveries`, { key: owner });
    expect(deliveries.status, deliveries.text).toBe(200);
    expect(deliveries.body.data).toHaveLength(1); // the intruder's test ping was not made
    expect(deliveries.body.data[0].attempt_count).toBe(0); // nor its redelivery
  });

  it('is still every operation of the key that subscribed it', async () => {
    // Arrange
    const subscribed = await api.call('POST', '/v1/webhooks/subscriptions', {
      key: owner,
      body: { url: hookUrl(), events: ['lead.created'] },
    });
    const id = subscribed.body.id as string;
    const ping = await api.call('POST', `/v1/webhooks/${id}/test`, { key: owner });
    expect(ping.status, ping.text).toBe(202);
    // Act
    const answers = [];
    for (const [method, path, body] of perEndpointCalls(id, ping.body.id)) {
      answers.push([`${method} ${path}`, await api.call(method, path, { key: owner, body })] as const);
    }
    // Assess
    for (const [call, res] of answers) expect(res.status, `${call}: ${res.text}`).toBeLessThan(300);
    expect((await getEndpoint(tenant.tenantId, id))?.deletedAt).toBeDefined();
  });
});

describe('a console endpoint', () => {
  it('is read by any key, and answers 404 to every other per-endpoint operation; nothing changes', async () => {
    // Arrange
    const endpoint = await createEndpoint({
      tenantId: tenant.tenantId,
      url: hookUrl(),
      events: ['lead.created'],
      via: 'console',
    });
    // Act
    const answers = [];
    for (const key of [owner, tenant.key]) {
      const read = await api.call('GET', `/v1/webhooks/${endpoint.id}`, { key });
      expect(read.status, read.text).toBe(200);
      expect(read.body).toMatchObject({ id: endpoint.id, events: ['lead.created'], created_via: 'console' });
      expect(read.body.secret).toBeUndefined();
      for (const [method, path, body] of perEndpointCalls(endpoint.id, endpoint.id).slice(1)) {
        answers.push([`${method} ${path}`, await api.call(method, path, { key, body })] as const);
      }
    }
    // Assess
    expect(
      answers.filter(([, res]) => res.status !== 404).map(([call, res]) => `${call} → ${res.status}`),
    ).toEqual([]);
    const after = await getEndpoint(tenant.tenantId, endpoint.id);
    expect(after).toEqual(endpoint);
  });
});

describe('GET /v1/webhooks', () => {
  it("lists the key's own endpoints and the console's, never another key's", async () => {
    // Arrange
    const mine = await api.call('POST', '/v1/webhooks/subscriptions', {
      key: intruder,
      body: { url: hookUrl(), events: ['lead.created'] },
    });
    expect(mine.status, mine.text).toBe(201);
    const theirs = await api.call('POST', '/v1/webhooks/subscriptions', {
      key: owner,
      body: { url: hookUrl(), events: ['lead.created'] },
    });
    const fromConsole = await createEndpoint({
      tenantId: tenant.tenantId,
      url: hookUrl(),
      events: ['lead.created'],
      via: 'console',
    });
    await afterIndexLag(); // a list read by an index, after the test's writes
    // Act
    const listed = await api.call('GET', '/v1/webhooks?limit=200', { key: intruder });
    // Assess
    expect(listed.status, listed.text).toBe(200);
    const ids = (listed.body.data as { id: string }[]).map((e) => e.id);
    expect(ids).toContain(mine.body.id);
    expect(ids).not.toContain(theirs.body.id);
    expect(ids).toContain(fromConsole.id);
  });
});
