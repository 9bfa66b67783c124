import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/**
 * The rate-limit counter (one UpdateItem on the Tenant's window item) refused for capacity, as
 * DynamoDB answers once the SDK's own retries are spent: injected before the SDK's retry step, so
 * every other call of the request runs for real on DynamoDB Local.
 */
const NAME = 'throttleRateLimitCounter';
let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const pk = (args.input as { Key?: { pk?: unknown } }).Key?.pk;
      if (typeof pk === 'string' && pk.includes(tenant.tenantId) && pk.includes('#rate#')) {
        throw Object.assign(
          new Error('The level of configured provisioned throughput for the table was exceeded'),
          {
            name: 'ProvisionedThroughputExceededException',
          },
        );
      }
      return next(args);
    },
    { step: 'initialize', name: NAME },
  );
  api = await startTestApi(tenant.key);
});
afterAll(async () => {
  dynamo().middlewareStack.remove(NAME);
  await api.close();
});

describe('a throttled rate-limit counter', () => {
  it('answers a read 429 with Retry-After, not 500', async () => {
    // Act
    const res = await api.call('GET', '/v1/properties');
    // Assess
    expect(res.status, res.text).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers a write 429 with Retry-After, not 500', async () => {
    // Act
    const res = await api.call('POST', '/v1/properties', {
      body: { title: 'Throttled', ai_enrichment: false },
    });
    // Assess
    expect(res.status, res.text).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
