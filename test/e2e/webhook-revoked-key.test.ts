/**
 * The subscribing key governs its endpoints at all times (docs/events-and-webhooks.md), on the real
 * HTTP server with the auth cache as in AWS (60 s): a key revoked a moment ago still passes
 * authentication, yet it can neither re-enable its endpoint nor subscribe anew, and a later
 * `lead.created` reaches only the endpoints of live subscribers (a console endpoint here, which has no
 * key and is unaffected).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getEndpoint, queryDeliveries } from '../../functions/data/webhooks.ts';
import { resetConfig } from '../../functions/kernel/config.ts';
import { clearAuthCache } from '../../functions/pipeline/middleware/authenticate.ts';
import { revokeApiKeyById } from '../../functions/services/api-keys.ts';
import { createEndpoint } from '../../functions/services/webhook-endpoints.ts';
import { afterIndexLag, eventually } from '../support/eventually.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';

/**
 * How long the test waits for the stream consumer to fan the event out to the console endpoint. The
 * consumer reads the stream every test file writes to, so on a loaded machine this can take many
 * seconds; the test's own time limit is set above it, so that a slow fan-out is waited out and a
 * missing one fails on the assertion that names it, not on the runner's timeout.
 */
const FAN_OUT_WAIT_MS = 60_000;

let api: TestApi;
let tenant: TestTenant;
let consumer: TestStreamConsumer;

beforeAll(async () => {
  vi.stubEnv('AUTH_CACHE_TTL_SECONDS', '60');
  resetConfig();
  clearAuthCache();
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  consumer = await startTestStreamConsumer([tenant.tenantId]);
});
afterAll(async () => {
  consumer?.stop();
  await api?.close();
  clearAuthCache();
  vi.unstubAllEnvs();
  resetConfig();
});

/** The event types delivered to an endpoint, read from the table (no key reads a console endpoint's log). */
async function deliveredTypes(endpointId: string): Promise<string[]> {
  return (await queryDeliveries(tenant.tenantId, endpointId, 100)).map((d) => d.eventType);
}

describe('a revoked key within the auth cache window', () => {
  it(
    'cannot re-enable its endpoint or subscribe anew, and a later lead.created is not delivered to it',
    async () => {
      // Prepare: a key subscribes (and is cached by authentication), a console endpoint listens too.
      const subscriber = await tenant.newKey(['webhooks:manage', 'leads:read']);
      const subscribed = await api.call('POST', '/v1/webhooks/subscriptions', {
        key: subscriber.key,
        body: { url: 'https://93.184.216.34/hooks/revoked', events: ['lead.created'] },
      });
      expect(subscribed.status, subscribed.text).toBe(201);
      const consoleEndpoint = await createEndpoint({
        tenantId: tenant.tenantId,
        url: 'https://93.184.216.34/hooks/console',
        events: ['lead.created'],
        via: 'console',
      });
      // Fan-out finds endpoints through an index that may lag its table by a moment (as on AWS): an
      // event within that moment of a subscription may not reach it (docs/events-and-webhooks.md).
      await afterIndexLag();
      const revoked = await revokeApiKeyById(tenant.tenantId, subscriber.id);
      expect(revoked.webhooksDisabled).toBe(1);

      // Act: the revoked key, still cached, tries to get its feed back.
      const reEnabled = await api.call('PATCH', `/v1/webhooks/${subscribed.body.id}`, {
        key: subscriber.key,
        body: { enabled: true },
      });
      const resubscribed = await api.call('POST', '/v1/webhooks/subscriptions', {
        key: subscriber.key,
        body: { url: 'https://93.184.216.34/hooks/again', events: ['lead.created'] },
      });
      const byOtherKey = await api.call('PATCH', `/v1/webhooks/${subscribed.body.id}`, {
        body: { enabled: true },
      });
      const lead = await api.call('POST', '/v1/leads', {
        body: { name: 'After Revocation', email: `after-${subscriber.id.slice(0, 8)}@example.com` },
      });
      expect(lead.status, lead.text).toBe(201);
      const fannedOut = await eventually(
        () => deliveredTypes(consoleEndpoint.id),
        (types) => types.includes('lead.created'),
        { timeoutMs: FAN_OUT_WAIT_MS, intervalMs: 200 },
      );

      // Assess
      expect(fannedOut, 'the console endpoint never got the lead.created delivery').toContain('lead.created');
      expect(reEnabled.status, reEnabled.text).toBe(422);
      expect(reEnabled.body.detail[0].loc).toEqual(['body', 'enabled']);
      expect(reEnabled.body.detail[0].msg).toContain('revoked');
      expect(byOtherKey.status, byOtherKey.text).toBe(404); // not the key that subscribed it
      expect(resubscribed.status, resubscribed.text).toBe(401);
      const endpoint = await getEndpoint(tenant.tenantId, subscribed.body.id);
      expect(endpoint).toMatchObject({ enabled: false, disabledReason: 'key_revoked' });
      expect(await deliveredTypes(subscribed.body.id)).not.toContain('lead.created');
    },
    FAN_OUT_WAIT_MS + 20_000,
  );
});
