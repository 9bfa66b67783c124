import { beforeAll, describe, expect, it } from 'vitest';
import { readBudget } from '../../functions/data/bounded-read.ts';
import { metered } from '../../functions/data/client.ts';
import { Lead } from '../../functions/data/entities/lead.ts';
import { LegacyLeadSearchToken } from '../../functions/data/entities/lead-search-token.ts';
import { getLead, type LeadRecord, rekeyLeads, writeLead } from '../../functions/data/leads.ts';
import { getTenant, type TenantRecord } from '../../functions/data/tenants.ts';
import { editLead, listLeads } from '../../functions/services/leads.ts';
import { createTestTenant, testLeadRecord } from '../support/factories.ts';

/** ~3 KB of notes: a Lead of a few KB, so read units tell how many Leads a page read. */
const BULKY_NOTES = `bulky ${'x'.repeat(3000)}`;

const present = (l: LeadRecord) => l;
type ListInput = Parameters<typeof listLeads>[1];
const input = (fields: Partial<ListInput>): ListInput => ({ limit: 5, include_archived: false, ...fields });

/** Every page of a list, following next_cursor, with what each page cost. */
async function allPages(tenant: TenantRecord, fields: Partial<ListInput>) {
  const pages: { names: string[]; readUnits: number }[] = [];
  let cursor: string | undefined;
  do {
    const { result, meter } = await metered(() =>
      listLeads(tenant, input({ ...fields, ...(cursor ? { cursor } : {}) }), present),
    );
    pages.push({ names: result.data.map((l) => l.name), readUnits: meter.readUnits });
    cursor = result.next_cursor ?? undefined;
  } while (cursor && pages.length < 50);
  return pages;
}

async function tenantRecord(): Promise<TenantRecord> {
  const { tenantId } = await createTestTenant();
  return (await getTenant(tenantId)) as TenantRecord;
}

describe('a list costs what it returns', () => {
  let tenant: TenantRecord;

  beforeAll(async () => {
    // Prepare: 30 bulky Leads archived before the 3 live ones were last touched (the live Leads
    // come last in (updatedAt, id) order), and one selective match behind 30 unassigned Leads.
    tenant = await tenantRecord();
    const { tenantId } = tenant;
    for (let i = 0; i < 30; i++) {
      await writeLead({
        next: testLeadRecord(tenantId, { name: `Archived ${i}`, notes: BULKY_NOTES, isActive: false }),
      });
    }
    for (let i = 0; i < 30; i++) {
      await writeLead({ next: testLeadRecord(tenantId, { name: `Unassigned ${i}`, notes: BULKY_NOTES }) });
    }
    await writeLead({
      next: testLeadRecord(tenantId, {
        name: 'Selective Match',
        status: 'closed_won',
        scoreTier: 'hot',
        score: 95,
        phone: '+34600111222',
      }),
    });
    for (let i = 0; i < 2; i++)
      await writeLead({ next: testLeadRecord(tenantId, { name: `Live ${i}`, phone: '+34611000000' }) });
  });

  it('reads no archived Lead for a page of live ones; include_archived reads them where they are', async () => {
    // Act
    const live = await metered(() => listLeads(tenant, input({ limit: 2 }), present));
    const everything = await allPages(tenant, { include_archived: true, limit: 20 });
    // Assess: 3 bulky live Leads (limit + 1) are 3 read units as DynamoDB Local counts them (one per
    // 4 KB item); the 30 archived ones before them would be 30 more.
    expect(live.result.data.map((l) => l.name)).toEqual(['Unassigned 0', 'Unassigned 1']);
    expect(live.meter.readUnits).toBeLessThanOrEqual(4);
    const names = everything.flatMap((p) => p.names);
    expect(names).toHaveLength(63);
    expect(names.slice(0, 2)).toEqual(['Archived 0', 'Archived 1']);
  });

  it('answers a selective filter triple with short pages and a cursor, each read bounded', async () => {
    // Act
    const pages = await allPages(tenant, { owner: 'unassigned', status: ['closed_won'], tier: ['hot'] });
    // Assess: the match is found by following the cursor; no page reads more than its budget
    // (18 Leads of ~3 KB, one read unit each as DynamoDB Local counts; reading on to the match: 31).
    expect(pages.flatMap((p) => p.names)).toEqual(['Selective Match']);
    expect(pages[0]?.names).toEqual([]);
    expect(pages.length).toBeGreaterThan(1);
    const budgetUnits = readBudget(5) + 1;
    for (const page of pages) expect(page.readUnits).toBeLessThanOrEqual(budgetUnits);
  });

  it('answers q with a word shorter than every token prefix (q=34) from the list, bounded', async () => {
    // Act
    const pages = await allPages(tenant, { q: '34' });
    // Assess
    expect(pages.flatMap((p) => p.names)).toEqual(['Selective Match', 'Live 0', 'Live 1']);
    const budgetUnits = readBudget(5) + 1;
    for (const page of pages) expect(page.readUnits).toBeLessThanOrEqual(budgetUnits);
  });
});

describe('writes proportionate to the change', () => {
  it('a status change writes the Lead alone, no search token', async () => {
    // Prepare
    const tenant = await tenantRecord();
    const lead = testLeadRecord(tenant.tenantId, {
      name: 'Wilhelmina Castellanos-Oyelaran',
      email: 'wilhelmina.castellanos@example.com',
      phone: '+34600123123',
      notes: 'Looking for a penthouse with sea views near Marbella, budget flexible',
    });
    await writeLead({ next: lead });
    // Act
    const { meter } = await metered(() => editLead(tenant.tenantId, lead.id, { status: 'contacted' }));
    const found = await listLeads(tenant, input({ q: 'castellanos' }), present);
    const notes = await metered(() => editLead(tenant.tenantId, lead.id, { notes: 'Wants a villa' }));
    // Assess: the transaction holds the Lead alone (before: its 37 tokens deleted and put again);
    // a notes change rewrites them: the 23 prefixes of the notes words gone deleted, the 18 current
    // ones put.
    expect(meter.transactItems).toBe(1);
    expect(notes.meter.transactItems).toBe(1 + 23 + 18);
    expect(found.data.map((l) => l.status)).toEqual(['contacted']);
  });
});

describe('rekeyLeads', () => {
  it('re-files Leads stored under the older keys: archived ones out of the live list, legacy tokens replaced', async () => {
    // Prepare: two Leads as they were stored before: in the live partitions, tokens of version 1.
    const tenant = await tenantRecord();
    const { tenantId } = tenant;
    const legacy = (fields: Partial<LeadRecord>) => ({
      ...testLeadRecord(tenantId, fields),
      listKey: 'leads' as const,
      searchPrefixes: ['in', 'ing', 'ingr'],
    });
    const archived = legacy({ name: 'Ingrid Olsen', isActive: false });
    const live = legacy({ name: 'Ingeborg Lund' });
    for (const lead of [archived, live]) {
      await Lead.put(lead).go();
      for (const prefix of lead.searchPrefixes) {
        await LegacyLeadSearchToken.put({
          tenantId,
          prefix,
          leadId: lead.id,
          updatedAt: lead.updatedAt,
        }).go();
      }
    }
    const before = await listLeads(tenant, input({ q: 'ingrid', include_archived: true }), present);
    // Act
    const run = await rekeyLeads(tenantId);
    // Assess
    expect(before.data).toEqual([]);
    expect(run).toMatchObject({ examined: 2, rekeyed: 2 });
    const stored = await getLead(tenantId, archived.id);
    expect(stored).toMatchObject({ listKey: 'archived-leads', updatedAt: archived.updatedAt });
    expect(stored?.searchPrefixes).toBeUndefined();
    const legacyTokens = await LegacyLeadSearchToken.query.byPrefix({ tenantId, prefix: 'ing' }).go();
    expect(legacyTokens.data).toEqual([]);
    const list = (fields: Partial<ListInput>) => listLeads(tenant, input(fields), present);
    expect((await list({})).data.map((l) => l.name)).toEqual(['Ingeborg Lund']);
    expect((await list({ q: 'ingrid', include_archived: true })).data.map((l) => l.name)).toEqual([
      'Ingrid Olsen',
    ]);
    expect((await list({ q: 'ingeborg' })).data.map((l) => l.name)).toEqual(['Ingeborg Lund']);
    expect(await rekeyLeads(tenantId)).toMatchObject({ examined: 1, rekeyed: 0 });
  });
});
