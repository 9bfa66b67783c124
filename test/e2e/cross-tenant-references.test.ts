/**
 * One Tenant's ids mean nothing to another: an id in a body that names another Tenant's object (Agent, Area, listing) is
 * treated exactly like an unknown id: the same 422 (or the same documented ingest warning), and
 * nothing is stored that links to the other Tenant's object. One test per reference.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createArea } from '../../functions/services/areas.ts';
import { listOutbox } from '../../scripts/local/adapters/outbox-email.ts';
import {
  createTestAgent,
  createTestLead,
  createTestTenant,
  type TestTenant,
  unique,
} from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startTestStreamConsumer, type TestStreamConsumer } from '../support/stream.ts';

type Call = Awaited<ReturnType<TestApi['call']>>;

let api: TestApi;
let mine: TestTenant;
let theirs: TestTenant;
/** The other Tenant's objects, each a valid id there. */
const their = {} as {
  agent: { id: string; email: string };
  listing: { id: string; slug: string; internal_ref: string };
  areaId: string;
};
let myAgentId: string;

beforeAll(async () => {
  [mine, theirs] = await Promise.all([createTestTenant(), createTestTenant()]);
  api = await startTestApi(mine.key);
  const [agent, area, own] = await Promise.all([
    createTestAgent(theirs.tenantId, 'Their Agent'),
    createArea({ tenantId: theirs.tenantId, kind: 'community', name: 'Their Area', placeCodes: [] }),
    createTestAgent(mine.tenantId, 'My Agent'),
  ]);
  const listing = await api.call('POST', '/v1/properties', {
    key: theirs.key,
    body: { title: 'Their villa', internal_ref: unique('THEIR-REF'), ai_enrichment: false },
  });
  expect(listing.status, listing.text).toBe(201);
  their.agent = { id: agent.id, email: agent.email };
  their.listing = listing.body;
  their.areaId = area.area.id;
  myAgentId = own.id;
  reactions = await startTestStreamConsumer([mine.tenantId, theirs.tenantId]);
});
afterAll(async () => {
  reactions.stop();
  await api.close();
});

/** The Owner's emails are a stream reaction: the real consumer runs it for this tenant. */
let reactions: TestStreamConsumer;

/** This tenant's outbox once the Owner's email about `leadId` went out (the reaction ran). */
async function outboxAfterNotice(leadId: string) {
  return vi.waitFor(
    async () => {
      const outbox = await listOutbox(mine.tenantId);
      expect(outbox.filter((m) => m.text.includes(leadId))).not.toEqual([]);
      return outbox;
    },
    { timeout: 20_000, interval: 100 },
  );
}

/** A 422's items with every id replaced, so an unknown id's answer and a foreign id's compare equal. */
function normalised(res: Call, ids: string[]) {
  let text = res.text;
  for (const id of ids) text = text.split(id).join('<id>');
  return { status: res.status, body: JSON.parse(text) };
}

/** Sends the same request with an unknown id and with the other Tenant's id: both must answer alike. */
async function sameAsUnknown(
  foreignId: string,
  send: (id: string) => Promise<Call>,
  expectedLoc: (string | number)[],
) {
  const unknownId = randomUUID();
  const unknown = await send(unknownId);
  const foreign = await send(foreignId);
  expect(foreign.status, foreign.text).toBe(422);
  expect(foreign.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([expectedLoc]);
  expect(normalised(foreign, [foreignId])).toEqual(normalised(unknown, [unknownId]));
  return foreign;
}

const myListing = async (body: Record<string, unknown> = {}) => {
  const res = await api.call('POST', '/v1/properties', {
    body: { title: 'My flat', ai_enrichment: false, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; agent_id: string | null; updated_at: string };
};

describe('listings', () => {
  it("POST /v1/properties: another tenant's agent_id is 422 like an unknown one, and nothing is created", async () => {
    // Prepare
    const title = unique('Refused');
    // Act
    await sameAsUnknown(
      their.agent.id,
      (id) => api.call('POST', '/v1/properties', { body: { title, agent_id: id } }),
      ['body', 'agent_id'],
    );
    const listed = await api.call('GET', '/v1/properties?limit=200');
    // Assess
    expect(listed.body.data.filter((p: { title: string }) => p.title === title)).toEqual([]);
  });

  it("POST /v1/properties: another tenant's agent_email is 422 like an unknown one", async () => {
    // Act
    const unknown = await api.call('POST', '/v1/properties', {
      body: { title: 'x', agent_email: `${unique('nobody')}@example.com` },
    });
    const foreign = await api.call('POST', '/v1/properties', {
      body: { title: 'x', agent_email: their.agent.email },
    });
    // Assess
    expect(foreign.status).toBe(422);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body.detail[0].loc).toEqual(['body', 'agent_email']);
  });

  it("PATCH /v1/properties/{id}: another tenant's agent_id is 422 and the listing keeps its Agent", async () => {
    // Prepare
    const listing = await myListing({ agent_id: myAgentId });
    // Act
    await sameAsUnknown(
      their.agent.id,
      (id) => api.call('PATCH', `/v1/properties/${listing.id}`, { body: { agent_id: id } }),
      ['body', 'agent_id'],
    );
    const after = await api.call('GET', `/v1/properties/${listing.id}`);
    // Assess
    expect(after.body.agent_id).toBe(myAgentId);
    expect(after.body.updated_at).toBe(listing.updated_at);
  });

  it("PUT /v1/properties/by-ref/{ref}: another tenant's agent_id is 422 and nothing is created", async () => {
    // Prepare
    const ref = unique('MY-REF');
    // Act
    await sameAsUnknown(
      their.agent.id,
      (id) => api.call('PUT', `/v1/properties/by-ref/${ref}`, { body: { title: 'By ref', agent_id: id } }),
      ['body', 'agent_id'],
    );
    const created = await api.call('PUT', `/v1/properties/by-ref/${ref}`, { body: { title: 'By ref' } });
    // Assess: the reference was still free
    expect(created.status).toBe(201);
  });
});

describe('Leads', () => {
  it("POST /v1/leads: another tenant's assigned_agent_id is 422 like an unknown one, and no Lead is created", async () => {
    // Prepare
    const address = `${unique('walkin')}@example.com`;
    // Act
    await sameAsUnknown(
      their.agent.id,
      (id) =>
        api.call('POST', '/v1/leads', { body: { name: 'Walk-in', email: address, assigned_agent_id: id } }),
      ['body', 'assigned_agent_id'],
    );
    const found = await api.call('GET', `/v1/leads?q=${encodeURIComponent(address)}`);
    // Assess
    expect(found.body.data).toEqual([]);
  });

  it("PATCH /v1/leads/{id}: another tenant's assigned_agent_id is 422 and the Owner is unchanged", async () => {
    // Prepare
    const leadId = await createTestLead(mine.tenantId);
    const before = await api.call('GET', `/v1/leads/${leadId}`);
    // Act
    await sameAsUnknown(
      their.agent.id,
      (id) => api.call('PATCH', `/v1/leads/${leadId}`, { body: { assigned_agent_id: id } }),
      ['body', 'assigned_agent_id'],
    );
    const after = await api.call('GET', `/v1/leads/${leadId}`);
    // Assess
    expect(after.body).toEqual(before.body);
  });

  it("PUT /v1/leads/{id}/criteria: another tenant's Area in area_ids is 422 and the criteria stay", async () => {
    // Prepare
    const leadId = await createTestLead(mine.tenantId);
    const saved = await api.call('PUT', `/v1/leads/${leadId}/criteria`, { body: { min_beds: 2 } });
    expect(saved.status, saved.text).toBe(200);
    // Act
    await sameAsUnknown(
      their.areaId,
      (id) => api.call('PUT', `/v1/leads/${leadId}/criteria`, { body: { min_beds: 3, area_ids: [id] } }),
      ['body', 'area_ids', 0],
    );
    const after = await api.call('GET', `/v1/leads/${leadId}/criteria`);
    // Assess
    expect(after.body).toEqual(saved.body);
  });

  it("POST /v1/leads/{id}/properties: another tenant's listing is 422 and nothing is linked", async () => {
    // Prepare
    const leadId = await createTestLead(mine.tenantId);
    // Act
    await sameAsUnknown(
      their.listing.id,
      (id) =>
        api.call('POST', `/v1/leads/${leadId}/properties`, { body: { property_id: id, role: 'owner' } }),
      ['body', 'property_id'],
    );
    const links = await api.call('GET', `/v1/leads/${leadId}/properties`);
    // Assess
    expect(links.body.data).toEqual([]);
  });
});

describe('Activities', () => {
  it("POST /v1/leads/{id}/activities: another tenant's listing is 422 and no Activity is written", async () => {
    // Prepare
    const leadId = await createTestLead(mine.tenantId);
    // Act
    await sameAsUnknown(
      their.listing.id,
      (id) =>
        api.call('POST', `/v1/leads/${leadId}/activities`, {
          body: { kind: 'note', title: 'Viewing notes', property_id: id },
        }),
      ['body', 'property_id'],
    );
    const list = await api.call('GET', `/v1/leads/${leadId}/activities`);
    // Assess
    expect(list.body.data).toEqual([]);
  });

  it("PATCH /v1/activities/{id}: another tenant's listing is 422 and the Activity is unchanged", async () => {
    // Prepare
    const leadId = await createTestLead(mine.tenantId);
    const listing = await myListing();
    const created = await api.call('POST', `/v1/leads/${leadId}/activities`, {
      body: { kind: 'note', title: 'About my flat', property_id: listing.id },
    });
    expect(created.status, created.text).toBe(201);
    // Act
    await sameAsUnknown(
      their.listing.id,
      (id) => api.call('PATCH', `/v1/activities/${created.body.id}`, { body: { property_id: id } }),
      ['body', 'property_id'],
    );
    const after = await api.call('GET', `/v1/activities/${created.body.id}`);
    // Assess
    expect(after.body).toEqual(created.body);
  });
});

describe('POST /v1/leads:ingest', () => {
  const ingest = (extra: Record<string, unknown>) =>
    api.call('POST', '/v1/leads:ingest', {
      body: {
        source: 'portal',
        type: 'inquiry',
        person: { name: 'Ingested', email: `${unique('ingest')}@example.com` },
        ...extra,
      },
    });

  /** The warnings of two ingests, ids and references replaced, must be the same. */
  async function sameWarningAsUnknown(field: string, foreign: string, unknown: string, code: string) {
    const a = await ingest({ [field]: unknown });
    const b = await ingest({ [field]: foreign });
    expect(b.status, b.text).toBe(201);
    const warnings = (res: Call, value: string) =>
      (res.body.warnings as { code: string; detail: string }[]).map((w) => ({
        code: w.code,
        detail: w.detail.split(value).join('<ref>'),
      }));
    expect(warnings(b, foreign)).toEqual(warnings(a, unknown));
    expect(warnings(b, foreign).map((w) => w.code)).toEqual([code]);
    return b;
  }

  it("another tenant's property_id gives property_not_found, and the Inquiry names no listing", async () => {
    // Act
    const res = await sameWarningAsUnknown(
      'property_id',
      their.listing.id,
      randomUUID(),
      'property_not_found',
    );
    const inquiry = await api.call('GET', `/v1/inquiries/${res.body.inquiry_id}`);
    const links = await api.call('GET', `/v1/leads/${res.body.lead.id}/properties`);
    // Assess
    expect(inquiry.body.property_id).toBeNull();
    expect(links.body.data).toEqual([]);
  });

  it.each([
    ['internal_ref', () => their.listing.internal_ref],
    ['slug', () => their.listing.slug],
  ])("another tenant's %s as property_ref gives property_ref_unmatched", async (_what, ref) => {
    // Act
    const res = await sameWarningAsUnknown(
      'property_ref',
      ref(),
      unique('NO-SUCH-REF'),
      'property_ref_unmatched',
    );
    const inquiry = await api.call('GET', `/v1/inquiries/${res.body.inquiry_id}`);
    // Assess
    expect(inquiry.body.property_id).toBeNull();
  });

  it("another tenant's agent_id gives agent_unmatched; the Owner is one of this tenant's, never theirs", async () => {
    // Act
    const res = await sameWarningAsUnknown('agent_id', their.agent.id, randomUUID(), 'agent_unmatched');
    const outbox = await outboxAfterNotice(res.body.lead.id);
    // Assess
    expect(res.body.lead.assigned_agent_id).toBe(myAgentId);
    expect(outbox.filter((m) => m.to === their.agent.email)).toEqual([]);
  });

  it("another tenant's agent_email gives agent_unmatched; their Agent is never emailed", async () => {
    // Act
    const res = await sameWarningAsUnknown(
      'agent_email',
      their.agent.email,
      `${unique('nobody')}@example.com`,
      'agent_unmatched',
    );
    const outbox = await outboxAfterNotice(res.body.lead.id);
    // Assess
    expect(res.body.lead.assigned_agent_id).toBe(myAgentId);
    expect(outbox.filter((m) => m.to === their.agent.email)).toEqual([]);
  });
});
