import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { getActivity, newActivityRecord } from '../../functions/data/activities.ts';
import { metered } from '../../functions/data/client.ts';
import { Inquiry } from '../../functions/data/entities/inquiry.ts';
import { LeadSearchToken } from '../../functions/data/entities/lead-search-token.ts';
import { UniqueClaim } from '../../functions/data/entities/unique-claim.ts';
import { listLeadInquiries } from '../../functions/data/inquiries.ts';
import { searchKeysOf } from '../../functions/data/lead-search.ts';
import {
  findLeadClaim,
  getLead,
  type LeadRecord,
  modifyLead,
  nextTimestamp,
  takeAssignmentTurn,
  writeLead,
} from '../../functions/data/leads.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { listLeads } from '../../functions/services/leads.ts';
import { createTestTenant, testLeadRecord } from '../support/factories.ts';

/** Every token item of a Lead, found by reading the partitions of the prefixes it could be under. */
async function tokensOfLead(tenantId: string, leadId: string, prefixes: string[]) {
  const found = await Promise.all(
    prefixes.map(async (prefix) => {
      const { data } = await LeadSearchToken.query
        .byPrefix({ tenantId, listKey: 'leads', prefix })
        .go({ pages: 'all' });
      return data.filter((t) => t.leadId === leadId);
    }),
  );
  return found.flat();
}

const pageQuery = {
  limit: 10,
  include_archived: false,
} as const;

describe('writeLead', () => {
  let tenantId: string;
  beforeAll(async () => {
    tenantId = (await createTestTenant()).tenantId;
  });

  it('keeps the search tokens in step with the searched fields: one per prefix, gone prefixes removed', async () => {
    // Prepare
    const lead = testLeadRecord(tenantId, { name: 'Olga Berg', email: 'olga@example.com' });
    // Act
    const created = await writeLead({
      next: lead,
      claims: [{ kind: 'lead-email', value: 'olga@example.com' }],
    });
    const edited = await modifyLead(tenantId, lead.id, (current) => ({ ...current, name: 'Olga Lind' }));
    // Assess
    expect(created.outcome).toBe('ok');
    const everyPrefix = [
      'olg',
      'olga',
      'ber',
      'berg',
      'lin',
      'lind',
      'exa',
      'exam',
      'exampl',
      'olga@e',
      'com',
    ];
    const tokens = await tokensOfLead(tenantId, lead.id, everyPrefix);
    expect(tokens.map((t) => t.prefix).sort()).toEqual([...searchKeysOf(edited.lead)].sort());
    expect(tokens.map((t) => t.prefix)).not.toContain('ber');
    expect(new Set(tokens.map((t) => t.createdAt))).toEqual(new Set([lead.createdAt]));
    expect(tokens.every((t) => t.text.includes(' lind'))).toBe(true);
  });

  it('writes nothing when a claim is taken: no Lead, no tokens, no Inquiry', async () => {
    // Prepare
    const holder = testLeadRecord(tenantId, { name: 'Holder', email: 'held@example.com' });
    await writeLead({ next: holder, claims: [{ kind: 'lead-email', value: 'held@example.com' }] });
    const loser = testLeadRecord(tenantId, { name: 'Loser Unique', email: 'held@example.com' });
    const inquiryId = randomUUID();
    // Act
    const result = await writeLead({
      next: loser,
      claims: [{ kind: 'lead-email', value: 'held@example.com' }],
      inquiry: {
        tenantId,
        id: inquiryId,
        leadId: loser.id,
        propertyKey: 'none',
        channel: 'form',
        type: 'inquiry',
        occurredAt: loser.createdAt,
        createdAt: loser.createdAt,
        updatedAt: loser.createdAt,
      },
    });
    // Assess
    expect(result.outcome).toBe('claim_taken');
    expect(await getLead(tenantId, loser.id)).toBeUndefined();
    expect(await tokensOfLead(tenantId, loser.id, ['los', 'lose', 'loser', 'uni', 'uniq', 'unique'])).toEqual(
      [],
    );
    expect((await Inquiry.get({ tenantId, id: inquiryId }).go()).data).toBeNull();
    expect(await findLeadClaim(tenantId, 'lead-email', 'held@example.com')).toBe(holder.id);
  });

  it('writes an Activity with its Lead, and neither when a claim is taken', async () => {
    // Prepare
    const holder = testLeadRecord(tenantId, { name: 'Note Holder', email: 'note-held@example.com' });
    const noteOf = (leadId: string) =>
      newActivityRecord({ tenantId, leadId, kind: 'note', title: 'Note from crm', createdBy: 'crm' });
    const kept = testLeadRecord(tenantId, { name: 'Kept Note', email: 'note-kept@example.com' });
    const keptNote = noteOf(kept.id);
    const loser = testLeadRecord(tenantId, { name: 'Lost Note', email: 'note-held@example.com' });
    const lostNote = noteOf(loser.id);
    await writeLead({ next: holder, claims: [{ kind: 'lead-email', value: 'note-held@example.com' }] });
    // Act
    const written = await writeLead({
      next: kept,
      claims: [{ kind: 'lead-email', value: 'note-kept@example.com' }],
      activity: keptNote,
    });
    const refused = await writeLead({
      next: loser,
      claims: [{ kind: 'lead-email', value: 'note-held@example.com' }],
      activity: lostNote,
    });
    // Assess
    expect(written.outcome).toBe('ok');
    expect(await getActivity(tenantId, keptNote.id)).toMatchObject({ leadId: kept.id, kind: 'note' });
    expect(refused.outcome).toBe('claim_taken');
    expect(await getLead(tenantId, loser.id)).toBeUndefined();
    expect(await getActivity(tenantId, lostNote.id)).toBeUndefined();
  });

  it('refuses a write based on a stale read and leaves the newer Lead as it is', async () => {
    // Prepare
    const lead = testLeadRecord(tenantId, { name: 'Stale Case' });
    await writeLead({ next: lead });
    const fresh = await modifyLead(tenantId, lead.id, (current) => ({ ...current, notes: 'newer' }));
    // Act
    const stale = await writeLead({
      previous: lead,
      next: { ...lead, notes: 'older', updatedAt: nextTimestamp(fresh.lead.updatedAt) },
    });
    // Assess
    expect(stale.outcome).toBe('stale');
    expect((await getLead(tenantId, lead.id))?.notes).toBe('newer');
  });

  it('lands every one of 10 concurrent edits of one Lead (optimistic retries)', async () => {
    // Prepare
    const lead = testLeadRecord(tenantId, { name: 'Busy Lead' });
    await writeLead({ next: lead });
    // Act
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        modifyLead(tenantId, lead.id, (current) => ({
          ...current,
          notes: [current.notes, `edit-${i}`].filter(Boolean).join(' '),
        })),
      ),
    );
    // Assess
    const notes = (await getLead(tenantId, lead.id))?.notes?.split(' ') ?? [];
    expect(notes.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `edit-${i}`).sort());
  });

  it('keeps ownerKey and tierKey in step with the owner and the score tier', async () => {
    // Prepare
    const lead = testLeadRecord(tenantId, { name: 'Keyed', ownerKey: 'wrong', tierKey: 'wrong' });
    // Act
    const created = await writeLead({ next: lead });
    const scored = await modifyLead(tenantId, lead.id, (c) => ({
      ...c,
      assignedAgentId: 'agent-1',
      scoreTier: 'warm',
    }));
    const unassigned = await modifyLead(tenantId, lead.id, (c) => {
      const next = { ...c };
      delete next.assignedAgentId;
      return next;
    });
    // Assess
    expect(created.lead).toMatchObject({ ownerKey: 'unassigned', tierKey: 'unscored' });
    expect(scored.lead).toMatchObject({ ownerKey: 'agent-1', tierKey: 'warm' });
    expect(unassigned.lead).toMatchObject({ ownerKey: 'unassigned', tierKey: 'warm' });
  });
});

describe('takeAssignmentTurn', () => {
  it('gives 30 concurrent callers 30 different turns', async () => {
    const { tenantId } = await createTestTenant();
    const turns = await Promise.all(Array.from({ length: 30 }, () => takeAssignmentTurn(tenantId)));
    expect(turns.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});

describe('listLeads is served by indexes, never by reading the tenant', () => {
  let tenant: TenantRecord;
  const present = (l: LeadRecord) => l;

  beforeAll(async () => {
    const { tenantId } = await createTestTenant();
    tenant = (await getTenant(tenantId)) as TenantRecord;
    // 60 plain Leads and 3 distinctive ones.
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        writeLead({
          next: testLeadRecord(tenantId, { name: `Filler Person ${i}`, notes: 'A note about nothing' }),
        }),
      ),
    );
    await writeLead({
      next: testLeadRecord(tenantId, {
        name: 'Quentin Zappa',
        status: 'qualified',
        assignedAgentId: 'agent-q',
      }),
    });
    await writeLead({ next: testLeadRecord(tenantId, { name: 'Quincy Zorn', scoreTier: 'hot', score: 90 }) });
    await writeLead({
      next: testLeadRecord(tenantId, { name: 'Long Notes', notes: `zebra ${'x'.repeat(600)}` }),
    });
  });

  it('reads a whole-tenant page by updated_at for reference', async () => {
    const { result, meter } = await metered(() => listLeads(tenant, { ...pageQuery, limit: 200 }, present));
    expect(result.data).toHaveLength(63);
    expect(meter.readUnits).toBeGreaterThan(5);
  });

  it('answers status, owner, tier and q pages reading a few items only', async () => {
    // Act
    const runs = await Promise.all([
      metered(() => listLeads(tenant, { ...pageQuery, status: ['qualified'] }, present)),
      metered(() => listLeads(tenant, { ...pageQuery, owner: 'agent-q' }, present)),
      metered(() => listLeads(tenant, { ...pageQuery, tier: ['hot'] }, present)),
      metered(() => listLeads(tenant, { ...pageQuery, q: 'zap' }, present)),
      metered(() => listLeads(tenant, { ...pageQuery, q: 'qui zo' }, present)),
    ]);
    // Assess
    expect(runs.map((r) => r.result.data.map((l) => l.name))).toEqual([
      ['Quentin Zappa'],
      ['Quentin Zappa'],
      ['Quincy Zorn'],
      ['Quentin Zappa'],
      ['Quincy Zorn'],
    ]);
    // A q page reads its tokens, then the Leads they name (one BatchGetItem).
    for (const [n, { meter }] of runs.entries()) {
      expect(meter.roundTrips).toBe(n < 3 ? 1 : 2);
      expect(meter.readUnits).toBeLessThanOrEqual(1);
    }
  });

  it('pages a q of many hits with a cursor, and a q hit with long notes comes back whole', async () => {
    // Act
    const page = await listLeads(tenant, { ...pageQuery, limit: 5, q: 'filler person' }, present);
    const zebra = await listLeads(tenant, { ...pageQuery, q: 'zebra' }, present);
    // Assess
    expect(page.data).toHaveLength(5);
    expect(page.next_cursor).not.toBeNull();
    expect(zebra.data).toHaveLength(1);
    expect(zebra.data[0]?.notes).toHaveLength(606);
  });
});

describe('listLeadInquiries', () => {
  it("gives a Lead's Inquiries newest first", async () => {
    // Prepare
    const { tenantId } = await createTestTenant();
    const leadId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const now = nextTimestamp();
      const id = randomUUID();
      ids.push(id);
      await Inquiry.create({
        tenantId,
        id,
        leadId,
        propertyKey: 'none',
        channel: 'form',
        type: 'inquiry',
        occurredAt: now,
        createdAt: now,
        updatedAt: now,
      }).go();
    }
    // Act
    const found = await listLeadInquiries(tenantId, leadId);
    // Assess
    expect(found.map((i) => i.id)).toEqual(ids.reverse());
  });
});

describe('claims', () => {
  it('are kept per tenant', async () => {
    const { tenantId } = await createTestTenant();
    const other = await createTestTenant();
    await UniqueClaim.create({
      scope: `t#${tenantId}`,
      kind: 'lead-email',
      value: 'shared@example.com',
      ownerId: 'lead-x',
      createdAt: nextTimestamp(),
    }).go();
    expect(await findLeadClaim(tenantId, 'lead-email', 'shared@example.com')).toBe('lead-x');
    expect(await findLeadClaim(other.tenantId, 'lead-email', 'shared@example.com')).toBeUndefined();
  });
});
