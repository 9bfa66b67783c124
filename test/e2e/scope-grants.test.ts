/**
 * Scopes exactly as docs/getting-started.md grants them, driven by the route table: a write scope reads
 * nothing of its own resource (only `properties:write` also reads listings), while the answer a
 * write returns stays the write's own result (the created Activity; the new Lead's id and the fields
 * sent: test/e2e/write-answers-scope.test.ts covers what a write-only key's answers leave out).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Scope, scopesOf } from '../../functions/domain/scopes.ts';
import { secretScope } from '../../functions/pipeline/route.ts';
import { routes } from '../../functions/routes.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;
const keys: Record<string, string> = {};

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  for (const scope of ['leads:write', 'activities:write', 'properties:write'] as const)
    keys[scope] = (await tenant.newKey([scope])).key;
});
afterAll(async () => {
  await api?.close();
});

/** The GET routes a read scope opens (alone or as one of a list). */
const readsOf = (read: Scope) =>
  routes.filter((r) => {
    const requirement = secretScope(r);
    return r.method === 'GET' && requirement !== undefined && scopesOf(requirement).includes(read);
  });

/** Any well-formed id: the scope is judged before the path is looked at. */
const withIds = (path: string) => path.replace(/\{\w+\}/g, () => randomUUID());

describe.each([
  ['leads:write', 'leads:read'],
  ['activities:write', 'activities:read'],
] as const)('a key holding only %s', (write, read) => {
  it(`gets 403 on every read that needs ${read}`, async () => {
    // Arrange
    const reads = readsOf(read);
    expect(reads.length).toBeGreaterThan(1);
    // Act
    const answers = await Promise.all(
      reads.map(
        async (r) =>
          [r.operationId, await api.call('GET', withIds(r.path), { key: keys[write] as string })] as const,
      ),
    );
    // Assess
    for (const [operationId, res] of answers) {
      expect(res.status, `${operationId}: ${res.text}`).toBe(403);
      expect(res.text).toContain(read);
    }
  });
});

describe('the answers writes return stay', () => {
  it('leads:write alone creates a Lead and is answered with it; activities:write an Activity', async () => {
    // Act
    const lead = await api.call('POST', '/v1/leads', {
      key: keys['leads:write'] as string,
      body: { name: 'Write Only', email: `${randomUUID().slice(0, 8)}@example.com` },
    });
    const activity = await api.call('POST', `/v1/leads/${lead.body?.id}/activities`, {
      key: keys['activities:write'] as string,
      body: { kind: 'note', title: 'Written blind' },
    });
    // Assess
    expect(lead.status, lead.text).toBe(201);
    expect(lead.body.name).toBe('Write Only');
    expect(activity.status, activity.text).toBe(201);
    expect(activity.body.title).toBe('Written blind');
  });

  it('properties:write still reads listings ("also reads them")', async () => {
    const res = await api.call('GET', '/v1/properties', { key: keys['properties:write'] as string });
    expect(res.status, res.text).toBe(200);
  });
});
