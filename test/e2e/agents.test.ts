import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../functions/services/agents.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestAgent, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTestTenant(), createTestTenant()]);
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

/** Every page of GET /v1/agents, following next_cursor. */
async function allPages(key: string, limit: number) {
  const ids: string[] = [];
  await afterIndexLag(); // a list read by an index, after the test's writes
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await api.call('GET', `/v1/agents${query}`, { key });
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.data.map((a: { id: string }) => a.id));
    cursor = res.body.next_cursor;
    pages++;
  } while (cursor && pages < 20);
  return { ids, pages };
}

describe('GET /v1/agents/{agent_id}', () => {
  it('answers the Agent with exactly its public fields', async () => {
    // Prepare
    const email = `${unique('ana')}@example.com`;
    const agent = await createAgent({
      tenantId: tenant.tenantId,
      name: 'Ana Ruiz',
      email: email.toUpperCase(),
      phone: '+34 600 000 000',
      isAdmin: true,
    });
    // Act
    const res = await api.call('GET', `/v1/agents/${agent.id}`);
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: agent.id,
      slug: agent.slug,
      name: 'Ana Ruiz',
      email,
      phone: '+34 600 000 000',
      is_admin: true,
      created_at: agent.createdAt,
      updated_at: agent.updatedAt,
    });
    expect(agent.slug).toMatch(/^ana-ruiz/);
  });

  it('answers phone null and is_admin false for an Agent without them', async () => {
    // Prepare
    const agent = await createTestAgent(tenant.tenantId, 'Plain Agent');
    // Act
    const res = await api.call('GET', `/v1/agents/${agent.id}`);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ phone: null, is_admin: false });
  });

  it("answers 404 for an unknown id and for another tenant's Agent, 422 for a malformed id", async () => {
    // Prepare
    const theirs = await createTestAgent(other.tenantId, 'Their Agent');
    // Act
    const unknown = await api.call('GET', `/v1/agents/${randomUUID()}`);
    const foreign = await api.call('GET', `/v1/agents/${theirs.id}`);
    const malformed = await api.call('GET', '/v1/agents/not-a-uuid');
    const theirView = await api.call('GET', `/v1/agents/${theirs.id}`, { key: other.key });
    // Assess
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['path', 'agent_id']]);
    expect(theirView.status).toBe(200);
  });
});

describe('GET /v1/agents', () => {
  it("pages through every Agent of the tenant once, least recently updated first, and none of another tenant's", async () => {
    // Prepare
    const fresh = await createTestTenant();
    const mine = [];
    for (const name of ['First', 'Second', 'Third', 'Fourth', 'Fifth']) {
      mine.push(await createTestAgent(fresh.tenantId, name));
    }
    await createTestAgent(other.tenantId, 'Elsewhere');
    // Act
    const { ids, pages } = await allPages(fresh.key, 2);
    const one = await api.call('GET', '/v1/agents?limit=50', { key: fresh.key });
    // Assess
    const expected = [...mine]
      .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id.localeCompare(b.id))
      .map((a) => a.id);
    expect(ids).toEqual(expected);
    expect(pages).toBe(3);
    expect(one.body.next_cursor).toBeNull();
    expect(one.body.data[0]).toEqual({
      id: expected[0],
      slug: expect.any(String),
      name: expect.any(String),
      email: expect.any(String),
      phone: null,
      is_admin: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('filters by updated_since and refuses an edited cursor or a time without offset with 422', async () => {
    // Prepare
    const fresh = await createTestTenant();
    const early = await createTestAgent(fresh.tenantId, 'Early');
    await new Promise((r) => setTimeout(r, 5));
    const late = await createTestAgent(fresh.tenantId, 'Late');
    await createTestAgent(fresh.tenantId, 'Later');
    const first = await api.call('GET', '/v1/agents?limit=1', { key: fresh.key });
    // Act
    const since = await api.call('GET', `/v1/agents?updated_since=${encodeURIComponent(late.updatedAt)}`, {
      key: fresh.key,
    });
    const edited = await api.call('GET', `/v1/agents?cursor=${first.body.next_cursor}x`, { key: fresh.key });
    const noOffset = await api.call('GET', '/v1/agents?updated_since=2024-01-01T00:00:00', {
      key: fresh.key,
    });
    // Assess
    expect(since.status).toBe(200);
    const sinceIds = since.body.data.map((a: { id: string }) => a.id);
    expect(sinceIds).toContain(late.id);
    expect(sinceIds).not.toContain(early.id);
    expect(edited.status).toBe(422);
    expect(edited.body.detail[0].loc).toEqual(['query', 'cursor']);
    expect(noOffset.status).toBe(422);
    expect(noOffset.body.detail[0].loc).toEqual(['query', 'updated_since']);
  });

  it('lets in a key with properties:read or leads:read (or properties:write) and refuses one with neither, leads:write alone included (403)', async () => {
    // Prepare
    const keys = {
      properties: await tenant.newKey(['properties:read']),
      leads: await tenant.newKey(['leads:read']),
      leadsWrite: await tenant.newKey(['leads:write']),
      activities: await tenant.newKey(['activities:read', 'webhooks:manage']),
    };
    const agent = await createTestAgent(tenant.tenantId, 'Scoped');
    // Act
    const answers = {
      properties: await api.call('GET', '/v1/agents', { key: keys.properties.key }),
      leads: await api.call('GET', `/v1/agents/${agent.id}`, { key: keys.leads.key }),
      leadsWrite: await api.call('GET', '/v1/agents', { key: keys.leadsWrite.key }),
      activitiesList: await api.call('GET', '/v1/agents', { key: keys.activities.key }),
      activitiesOne: await api.call('GET', `/v1/agents/${agent.id}`, { key: keys.activities.key }),
      anonymous: await api.call('GET', '/v1/agents', { key: null }),
    };
    // Assess
    expect(answers.properties.status).toBe(200);
    expect(answers.leads.status).toBe(200);
    expect(answers.leadsWrite.status).toBe(403);
    expect(answers.activitiesList.status).toBe(403);
    expect(answers.activitiesList.body.detail).toBe(
      'This API key lacks the scope properties:read or leads:read',
    );
    expect(answers.activitiesOne.status).toBe(403);
    expect(answers.anonymous.status).toBe(401);
  });
});
