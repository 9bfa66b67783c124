/** Malformed percent-encodings in the path, over real HTTP to the local server: 422, never 5xx. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

const MALFORMED = ['%ZZ', '%E0%A4%A', '%ED%A0%80', '%C0%AE%C0%AE', '%', 'abc%2'];

/** Every GET route with a path parameter, the parameter replaced by `segment`. */
const GET_PATHS = [
  '/v1/properties/{}',
  '/v1/leads/{}',
  '/v1/leads/{}/activities',
  '/v1/leads/{}/properties',
  '/v1/leads/{}/criteria',
  '/v1/leads/{}/matches',
  '/v1/inquiries/{}',
  '/v1/activities/{}',
  '/v1/agents/{}',
];

describe('malformed path encodings over HTTP', () => {
  it.each(MALFORMED)('GET routes answer %s with 422 at the path parameter', async (segment) => {
    for (const template of GET_PATHS) {
      // Act
      const res = await api.call('GET', template.replace('{}', segment));
      // Assess
      expect(res.status, `${template} ${res.text}`).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ type: 'encoding_invalid' });
      expect(res.body.detail[0].loc[0]).toBe('path');
    }
  });

  it.each(MALFORMED)('PUT /v1/properties/by-ref/%s answers 422 and creates nothing', async (segment) => {
    // Act
    const res = await api.call('PUT', `/v1/properties/by-ref/${segment}`, { body: { title: 'Never' } });
    const list = await api.call('GET', '/v1/properties?limit=200');
    // Assess
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['path', 'internal_ref'],
        msg: expect.stringMatching(/percent-encoding|UTF-8/),
        type: 'encoding_invalid',
      },
    ]);
    expect(list.body.data.filter((p: { title: string }) => p.title === 'Never')).toEqual([]);
  });

  it('writes with a malformed id answer 422 too (PATCH, DELETE, POST on a sub-resource)', async () => {
    // Act
    const patch = await api.call('PATCH', '/v1/properties/%ED%A0%80', { body: { title: 'x' } });
    const del = await api.call('DELETE', '/v1/leads/%C0%AE%C0%AE');
    const link = await api.call('POST', '/v1/leads/%ZZ/properties', {
      body: { property_id: randomUUID(), role: 'owner' },
    });
    // Assess
    expect([patch.status, del.status, link.status]).toEqual([422, 422, 422]);
  });

  it('a well-formed encoding still decodes (an internal_ref with a space and an accent)', async () => {
    // Act
    const res = await api.call('PUT', `/v1/properties/by-ref/${encodeURIComponent('CASA Ñ 1')}`, {
      body: { title: 'Encoded reference' },
    });
    // Assess
    expect(res.status, res.text).toBe(201);
    expect(res.body.internal_ref).toBe('CASA Ñ 1');
  });

  it('an unauthenticated request with a malformed path is still 401 first', async () => {
    // Act
    const res = await api.call('GET', '/v1/properties/%ZZ', { key: null });
    // Assess
    expect(res.status).toBe(401);
  });
});
