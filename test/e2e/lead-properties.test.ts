import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locs, type Output } from '../support/api-client.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestLead, createTestTenant, type TestTenant } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

/** LeadPropertyOut as the API answers it. */
type LeadProperty = Output<'linkLeadProperty'>;

let api: TestApi;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTestTenant(), createTestTenant()]);
  api = await startTestApi(tenant.key);
});
afterAll(async () => api.close());

const newLead = (tenantId = tenant.tenantId) =>
  createTestLead(tenantId, { name: 'Linked Lead', email: null });

async function newListing(title: string, key = tenant.key): Promise<string> {
  const res = await api.call('POST', '/v1/properties', { key, body: { title } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const link = (leadId: string, body: unknown, key = tenant.key) =>
  api.call('POST', `/v1/leads/${leadId}/properties`, { key, body });
const links = (leadId: string, key = tenant.key) =>
  api.call('GET', `/v1/leads/${leadId}/properties`, { key });

describe('POST /v1/leads/{lead_id}/properties', () => {
  it('links a listing (201, source manual, with its title) and lists it', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing('Penthouse with terrace');
    // Act
    const res = await link(leadId, { property_id: propertyId, role: 'interested' });
    // Assess
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      property_id: propertyId,
      property_title: 'Penthouse with terrace',
      role: 'interested',
      source: 'manual',
      created_at: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
    const list = await links(leadId);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [res.body] });
  });

  it('answers 200 with the existing link for the same listing again, updating a different role', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing('Townhouse');
    const first = await link(leadId, { property_id: propertyId, role: 'interested' });
    // Act
    const same = await link(leadId, { property_id: propertyId, role: 'interested' });
    const owner = await link(leadId, { property_id: propertyId, role: 'owner' });
    // Assess
    expect(first.status).toBe(201);
    expect(same.status).toBe(200);
    expect(same.body).toEqual(first.body);
    expect(owner.status).toBe(200);
    expect(owner.body).toEqual({ ...first.body, role: 'owner' });
    expect((await links(leadId)).body).toEqual({ data: [owner.body] });
  });

  it('keeps one link when 10 requests link the same listing at once', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing('Race flat');
    // Act
    const results = await Promise.all(
      Array.from({ length: 10 }, () => link(leadId, { property_id: propertyId, role: 'tenant' })),
    );
    // Assess
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const list = await links(leadId);
    expect(list.body.data).toHaveLength(1);
    for (const r of results) expect(r.body).toEqual(list.body.data[0]);
  });

  it('refuses an unknown listing or another tenant’s with 422 on body.property_id, linking nothing', async () => {
    // Prepare
    const leadId = await newLead();
    const theirs = await newListing('Their villa', other.key);
    // Act
    const unknown = await link(leadId, { property_id: randomUUID(), role: 'interested' });
    const foreign = await link(leadId, { property_id: theirs, role: 'interested' });
    // Assess
    for (const res of [unknown, foreign]) {
      expect(res.status).toBe(422);
      expect(locs(res.body)).toEqual([['body', 'property_id']]);
    }
    expect((await links(leadId)).body).toEqual({ data: [] });
  });

  it('names the field of bad input with 422', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing('Valid listing');
    // Act
    const badRole = await link(leadId, { property_id: propertyId, role: 'buyer' });
    const noRole = await link(leadId, { property_id: propertyId });
    const badId = await link(leadId, { property_id: 'abc', role: 'owner' });
    const badLead = await link('nope', { property_id: propertyId, role: 'owner' });
    // Assess
    expect(locs(badRole.body)).toEqual([['body', 'role']]);
    expect(locs(noRole.body)).toEqual([['body', 'role']]);
    expect(noRole.body.detail[0]).toMatchObject({ msg: 'Field required', type: 'missing' });
    expect(badRole.body.detail[0].msg).toBe('Must be one of interested, owner, tenant');
    expect(locs(badId.body)).toEqual([['body', 'property_id']]);
    expect(locs(badLead.body)).toEqual([['path', 'lead_id']]);
    for (const res of [badRole, noRole, badId, badLead]) expect(res.status).toBe(422);
    expect((await links(leadId)).body).toEqual({ data: [] });
  });

  it('answers 404 for an unknown Lead and for another tenant’s Lead, reading and writing', async () => {
    // Prepare
    const propertyId = await newListing('Anything');
    const theirLead = await newLead(other.tenantId);
    const theirListing = await newListing('Their flat', other.key);
    expect((await link(theirLead, { property_id: theirListing, role: 'owner' }, other.key)).status).toBe(201);
    // Act
    const unknownWrite = await link(randomUUID(), { property_id: propertyId, role: 'owner' });
    const foreignWrite = await link(theirLead, { property_id: propertyId, role: 'owner' });
    const unknownRead = await links(randomUUID());
    const foreignRead = await links(theirLead);
    // Assess
    for (const res of [unknownWrite, foreignWrite, unknownRead, foreignRead]) expect(res.status).toBe(404);
    expect(foreignRead.text).not.toContain('Their flat');
    await afterIndexLag(); // the list is read through an index, after the test's writes
    const theirs = await links(theirLead, other.key);
    expect(theirs.body.data.map((l: LeadProperty) => l.property_id)).toEqual([theirListing]);
  });
});

describe('GET /v1/leads/{lead_id}/properties', () => {
  it("lists only this Lead's links, oldest first, each with its listing's current title", async () => {
    // Prepare
    const [leadId, otherLead] = [await newLead(), await newLead()];
    const ids = [await newListing('First'), await newListing('Second'), await newListing('Third')];
    const roles = ['interested', 'owner', 'tenant'] as const;
    for (const [i, id] of ids.entries()) {
      expect((await link(leadId, { property_id: id, role: roles[i] })).status).toBe(201);
    }
    await link(otherLead, { property_id: ids[0], role: 'interested' });
    const renamed = await api.call('PATCH', `/v1/properties/${ids[1]}`, {
      body: { title: 'Second, renamed' },
    });
    expect(renamed.status).toBe(200);
    // Act
    const res = await links(leadId);
    // Assess
    expect(res.status).toBe(200);
    expect(
      res.body.data.map((l: LeadProperty) => [l.property_id, l.property_title, l.role, l.source]),
    ).toEqual([
      [ids[0], 'First', 'interested', 'manual'],
      [ids[1], 'Second, renamed', 'owner', 'manual'],
      [ids[2], 'Third', 'tenant', 'manual'],
    ]);
    expect((await links(otherLead)).body.data).toHaveLength(1);
    expect((await links(await newLead())).body).toEqual({ data: [] });
  });

  it('needs leads:read to read and leads:write to link', async () => {
    // Prepare
    const leadId = await newLead();
    const propertyId = await newListing('Scoped');
    const reader = await tenant.newKey(['leads:read']);
    const activitiesOnly = await tenant.newKey(['activities:write']);
    // Act
    const read = await links(leadId, reader.key);
    const write = await link(leadId, { property_id: propertyId, role: 'owner' }, reader.key);
    const wrongScope = await link(leadId, { property_id: propertyId, role: 'owner' }, activitiesOnly.key);
    const wrongRead = await links(leadId, activitiesOnly.key);
    // Assess
    expect(read.status).toBe(200);
    expect(write.status).toBe(403);
    expect(wrongScope.status).toBe(403);
    expect(wrongRead.status).toBe(403);
    expect((await links(leadId)).body).toEqual({ data: [] });
  });
});
