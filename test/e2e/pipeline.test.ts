import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlaces, createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate when no key is sent', async () => {
    // Act
    const res = await api.call('GET', '/v1/places', { key: null });
    // Assess
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('serves the Place catalogue to a valid key', async () => {
    const { town } = await createTestPlaces();
    const res = await api.call('GET', '/v1/places?limit=1000');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { code: string }) => p.code)).toContain(town.code);
  });
});
