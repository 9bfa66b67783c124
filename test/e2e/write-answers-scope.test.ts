/**
 * A write scope does not read through its own answers: a key holding `leads:write` without
 * `leads:read` (or `activities:write` without `activities:read`) is answered with the written
 * record's id and the fields it sent itself, never the stored record (notes, phone, score, Owner…).
 * A key that holds the read scope too is answered with the whole record, as before. An empty PATCH
 * body, which would change nothing and only read, is refused (422 at ["body"]) for every key.
 * Ingestion keeps answering the public Lead record (LeadIngestOut requires it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLead } from '../../functions/data/leads.ts';
import { locs } from '../support/api-client.ts';
import { createTestAgent, createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let api: TestApi;
let tenant: TestTenant;
/** Keys by the scopes they hold. */
const keys: Record<'leadsWrite' | 'leadsBoth' | 'activitiesWrite' | 'activitiesBoth', string> = {
  leadsWrite: '',
  leadsBoth: '',
  activitiesWrite: '',
  activitiesBoth: '',
};
let agentId: string;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  keys.leadsWrite = (await tenant.newKey(['leads:write'])).key;
  keys.leadsBoth = (await tenant.newKey(['leads:write', 'leads:read'])).key;
  keys.activitiesWrite = (await tenant.newKey(['activities:write'])).key;
  keys.activitiesBoth = (await tenant.newKey(['activities:write', 'activities:read'])).key;
  agentId = (await createTestAgent(tenant.tenantId, 'Owner Agent')).id;
});
afterAll(async () => {
  await api?.close();
});

/** A Lead with stored data a write-only key must not see: notes, a phone and an Owner. */
async function storedLead() {
  const email = `${unique('stored')}@example.com`;
  // A phone of its own: a phone another Lead holds would merge this one onto it.
  const phone = `+34${600_000_000 + Math.floor(Math.random() * 99_999_999)}`;
  const res = await api.call('POST', '/v1/leads', {
    body: {
      name: 'Stored Name',
      email,
      phone,
      notes: 'Private: budget 2M, divorcing',
      assigned_agent_id: agentId,
    },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as string, email, phone };
}

describe('PATCH /v1/leads/{lead_id}', () => {
  it('with leads:write alone answers the id and the fields sent, none of the stored Lead', async () => {
    // Arrange
    const lead = await storedLead();
    // Act
    const res = await api.call('PATCH', `/v1/leads/${lead.id}`, {
      key: keys.leadsWrite,
      body: { status: 'contacted' },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: lead.id, status: 'contacted' });
    expect(res.text).not.toContain('Private');
    expect(res.text).not.toContain(lead.phone.slice(3));
    expect(res.text).not.toContain(agentId);
    expect((await getLead(tenant.tenantId, lead.id, { consistent: true }))?.status).toBe('contacted');
  });

  it('an empty body is 422 at ["body"] for every key, and changes nothing', async () => {
    // Arrange
    const lead = await storedLead();
    const before = await getLead(tenant.tenantId, lead.id, { consistent: true });
    // Act
    const writeOnly = await api.call('PATCH', `/v1/leads/${lead.id}`, { key: keys.leadsWrite, body: {} });
    const full = await api.call('PATCH', `/v1/leads/${lead.id}`, { body: {} });
    // Assess
    for (const res of [writeOnly, full]) {
      expect(res.status, res.text).toBe(422);
      expect(locs(res)).toEqual([['body']]);
      expect(res.text).not.toContain('Private');
    }
    expect(await getLead(tenant.tenantId, lead.id, { consistent: true })).toEqual(before);
  });

  it('a refused move does not name the current status to a key that cannot read Leads', async () => {
    // Arrange: closed_won needs a qualified or negotiating Lead; this one is contacted.
    const lead = await storedLead();
    const moved = await api.call('PATCH', `/v1/leads/${lead.id}`, { body: { status: 'contacted' } });
    expect(moved.status, moved.text).toBe(200);
    // Act
    const writeOnly = await api.call('PATCH', `/v1/leads/${lead.id}`, {
      key: keys.leadsWrite,
      body: { status: 'closed_won' },
    });
    const reader = await api.call('PATCH', `/v1/leads/${lead.id}`, {
      key: keys.leadsBoth,
      body: { status: 'closed_won' },
    });
    // Assess
    expect(writeOnly.status, writeOnly.text).toBe(422);
    expect(locs(writeOnly)).toEqual([['body', 'status']]);
    expect(writeOnly.text).not.toContain('contacted');
    expect(reader.status, reader.text).toBe(422);
    expect(reader.text).toContain('from contacted');
  });

  it('with leads:read as well answers the whole Lead', async () => {
    // Arrange
    const lead = await storedLead();
    // Act
    const res = await api.call('PATCH', `/v1/leads/${lead.id}`, {
      key: keys.leadsBoth,
      body: { status: 'contacted' },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: lead.id,
      status: 'contacted',
      notes: 'Private: budget 2M, divorcing',
      phone: lead.phone,
      assigned_agent_id: agentId,
    });
  });
});

describe('POST /v1/leads', () => {
  it('with leads:write alone, a known email answers 200 with the id and what the key sent, not the stored Lead', async () => {
    // Arrange
    const lead = await storedLead();
    // Act
    const res = await api.call('POST', '/v1/leads', {
      key: keys.leadsWrite,
      body: { name: 'Probe', email: lead.email },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: lead.id, name: 'Probe', email: lead.email });
    expect(res.text).not.toContain('Private');
    expect(res.text).not.toContain('Stored Name');
    expect(res.text).not.toContain(agentId);
  });

  it('with leads:write alone, a new Lead answers 201 with the id and the fields sent (the Owner the rule picks is not shown)', async () => {
    // Act
    const email = `${unique('fresh')}@example.com`;
    const res = await api.call('POST', '/v1/leads', {
      key: keys.leadsWrite,
      body: { name: '  Fresh Lead ', email: email.toUpperCase(), notes: null },
    });
    // Assess: as the service read them (trimmed, the email lowercased).
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), name: 'Fresh Lead', email, notes: null });
    const stored = await getLead(tenant.tenantId, res.body.id, { consistent: true });
    expect(stored).toMatchObject({ name: 'Fresh Lead', email, source: 'manual' });
  });

  it('with leads:read as well, a known email answers the whole Lead', async () => {
    // Arrange
    const lead = await storedLead();
    // Act
    const res = await api.call('POST', '/v1/leads', {
      key: keys.leadsBoth,
      body: { name: 'Probe', email: lead.email },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: lead.id,
      notes: 'Private: budget 2M, divorcing',
      phone: lead.phone,
    });
  });
});

describe('POST /v1/leads:ingest (kept: LeadIngestOut carries the public Lead)', () => {
  it('answers a leads:write key with the Lead it matched', async () => {
    // Arrange
    const lead = await storedLead();
    // Act
    const res = await api.call('POST', '/v1/leads:ingest', {
      key: keys.leadsWrite,
      body: { source: 'portal', type: 'registration', person: { name: 'Probe', email: lead.email } },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body.lead).toMatchObject({ id: lead.id, notes: 'Private: budget 2M, divorcing' });
  });
});

describe('PATCH /v1/activities/{activity_id}', () => {
  async function storedActivity() {
    const lead = await storedLead();
    const res = await api.call('POST', `/v1/leads/${lead.id}/activities`, {
      body: { kind: 'call', title: 'Call about the divorce', body: 'Private: she wants it quiet' },
    });
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id as string, leadId: lead.id };
  }

  it('with activities:write alone answers the id and the fields sent, none of the stored Activity', async () => {
    // Arrange
    const activity = await storedActivity();
    // Act
    const res = await api.call('PATCH', `/v1/activities/${activity.id}`, {
      key: keys.activitiesWrite,
      body: { completed: true, reminder_at: null },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: activity.id, completed: true, reminder_at: null });
    expect(res.text).not.toContain('Private');
    expect(res.text).not.toContain(activity.leadId);
  });

  it('an empty body is 422 at ["body"] for every key', async () => {
    // Arrange
    const activity = await storedActivity();
    // Act
    const writeOnly = await api.call('PATCH', `/v1/activities/${activity.id}`, {
      key: keys.activitiesWrite,
      body: {},
    });
    const full = await api.call('PATCH', `/v1/activities/${activity.id}`, { body: {} });
    // Assess
    for (const res of [writeOnly, full]) {
      expect(res.status, res.text).toBe(422);
      expect(locs(res)).toEqual([['body']]);
      expect(res.text).not.toContain('Private');
    }
  });

  it('with activities:read as well answers the whole Activity', async () => {
    // Arrange
    const activity = await storedActivity();
    // Act
    const res = await api.call('PATCH', `/v1/activities/${activity.id}`, {
      key: keys.activitiesBoth,
      body: { completed: true },
    });
    // Assess
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: activity.id,
      lead_id: activity.leadId,
      body: 'Private: she wants it quiet',
      completed: true,
    });
  });
});
