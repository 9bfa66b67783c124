import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActivity, getActivity } from '../../functions/data/activities.ts';
import { LeadListing } from '../../functions/data/entities/lead-listing.ts';
import { Listing } from '../../functions/data/entities/listing.ts';
import { NotFoundError, RequestValidationError } from '../../functions/kernel/errors.ts';
import { addActivity, editActivity, listActivities } from '../../functions/services/activities.ts';
import {
  linkLeadListing,
  linkListingManually,
  listLinkedListings,
} from '../../functions/services/lead-listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { createTestLead, unique } from '../support/factories.ts';

let tenantId: string;
beforeAll(async () => {
  tenantId = (await createTenantFromAdmin({ slug: unique('act'), name: 'Activity Realty' })).tenantId;
});

const newLead = () => createTestLead(tenantId, { name: 'Int Lead', email: null });

/** Minimal listings written in one batch (the listing service's rules are tested elsewhere). */
async function newListings(count: number): Promise<{ id: string; title: string }[]> {
  const now = new Date().toISOString();
  const items = Array.from({ length: count }, (_, i) => ({
    tenantId,
    id: randomUUID(),
    title: `Listing ${i}`,
    slug: unique('slug'),
    origin: 'api' as const,
    createdBy: 'int',
    updatedBy: 'int',
    createdAt: now,
    updatedAt: now,
  }));
  const { unprocessed } = await Listing.put(items).go();
  expect(unprocessed).toEqual([]);
  return items.map(({ id, title }) => ({ id, title }));
}

/** The error a call rejects with (undefined if it resolves). */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const writer = () => ({ tenantId, name: 'int-key' });

describe('createActivity (the data call ingestion uses for note events)', () => {
  it('stores an open Activity attributed to its writer and returns it with its id', async () => {
    // Prepare
    const leadId = await newLead();
    // Act
    const record = await createActivity({
      tenantId,
      leadId,
      kind: 'note',
      title: 'Asked about parking',
      body: 'From the portal',
      createdBy: 'portal-sync',
    });
    // Assess
    expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await getActivity(tenantId, record.id)).toEqual({
      ...record,
      completed: false,
      createdBy: 'portal-sync',
    });
    const page = await listActivities(tenantId, { limit: 10 }, (a) => a.id, leadId);
    expect(page).toEqual({ data: [record.id], next_cursor: null });
  });
});

describe('editActivity', () => {
  it('applies concurrent edits of different fields without losing any', async () => {
    // Prepare
    const leadId = await newLead();
    const [listing] = await newListings(1);
    const activity = await addActivity(writer(), leadId, { kind: 'call', title: 'Start' });
    const assignee = randomUUID();
    // Act
    await Promise.all([
      editActivity(tenantId, activity.id, { title: 'Renamed' }),
      editActivity(tenantId, activity.id, { body: 'Some notes' }),
      editActivity(tenantId, activity.id, { reminder_at: '2030-01-01T08:00:00.000Z' }),
      editActivity(tenantId, activity.id, { assignee_user_id: assignee }),
      editActivity(tenantId, activity.id, { property_id: listing?.id ?? null }),
      editActivity(tenantId, activity.id, { completed: true }),
    ]);
    // Assess
    expect(await getActivity(tenantId, activity.id)).toMatchObject({
      title: 'Renamed',
      body: 'Some notes',
      reminderAt: '2030-01-01T08:00:00.000Z',
      assigneeUserId: assignee,
      propertyId: listing?.id,
      completed: true,
      completedAt: expect.any(String),
    });
  });

  it('completes once under 8 concurrent completions: every answer shows the same completed_at', async () => {
    // Prepare
    const activity = await addActivity(writer(), await newLead(), {
      kind: 'task',
      title: 'Race',
      due_at: '2030-01-01T08:00:00.000Z',
    });
    // Act
    const results = await Promise.all(
      Array.from({ length: 8 }, () => editActivity(tenantId, activity.id, { completed: true })),
    );
    // Assess
    const stored = await getActivity(tenantId, activity.id);
    expect(new Set(results.map((r) => r.completedAt))).toEqual(new Set([stored?.completedAt]));
    expect(stored?.updatedAt).toBe(stored?.completedAt);
  });

  it('writes nothing when a rule is broken, and answers 404 for another tenant', async () => {
    // Prepare
    const activity = await addActivity(writer(), await newLead(), { kind: 'call', title: 'Keep' });
    // Act
    const broken = await failure(editActivity(tenantId, activity.id, { kind: 'task', title: 'Changed' }));
    const unknownListing = await failure(editActivity(tenantId, activity.id, { property_id: randomUUID() }));
    const foreign = await failure(editActivity(randomUUID(), activity.id, { title: 'x' }));
    // Assess
    expect(broken).toBeInstanceOf(RequestValidationError);
    expect((broken as RequestValidationError).issues[0]?.loc).toEqual(['body', 'due_at']);
    expect((unknownListing as RequestValidationError).issues[0]?.loc).toEqual(['body', 'property_id']);
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(await getActivity(tenantId, activity.id)).toEqual(activity);
  });
});

describe('linkLeadListing (called by ingestion and match sending)', () => {
  it('records the source of the first link; an inquiry or a match never overrides a role a person set', async () => {
    // Prepare
    const leadId = await newLead();
    const [a, b] = await newListings(2);
    const link = (propertyId: string, role: 'interested' | 'owner', source: 'inquiry' | 'manual' | 'match') =>
      linkLeadListing({ tenantId, leadId, propertyId, role, source });
    // Act
    const fromInquiry = await link(a!.id, 'interested', 'inquiry');
    const manualOwner = await link(a!.id, 'owner', 'manual');
    const laterInquiry = await link(a!.id, 'interested', 'inquiry');
    const fromMatch = await link(b!.id, 'interested', 'match');
    const matchAgain = await link(b!.id, 'interested', 'match');
    // Assess
    expect(fromInquiry).toMatchObject({ created: true, link: { source: 'inquiry', role: 'interested' } });
    expect(manualOwner).toMatchObject({ created: false, link: { source: 'inquiry', role: 'owner' } });
    expect(manualOwner.link.createdAt).toBe(fromInquiry.link.createdAt);
    expect(laterInquiry).toMatchObject({ created: false, link: { role: 'owner' } });
    expect(fromMatch).toMatchObject({ created: true, link: { source: 'match' } });
    expect(matchAgain.created).toBe(false);
    const listed = await listLinkedListings(tenantId, leadId);
    expect(listed.map((l) => [l.title, l.link.role, l.link.source])).toEqual([
      [a!.title, 'owner', 'inquiry'],
      [b!.title, 'interested', 'match'],
    ]);
  });

  it("reads the titles of more than one batch of linked listings (one Query for the Lead's links)", async () => {
    // Prepare
    const leadId = await newLead();
    const listings = await newListings(130);
    await LeadListing.put(
      listings.map((l, i) => ({
        tenantId,
        leadId,
        propertyId: l.id,
        role: 'interested' as const,
        source: 'match' as const,
        createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
        updatedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
      })),
    ).go();
    // Act
    const listed = await listLinkedListings(tenantId, leadId);
    // Assess
    expect(listed.map((l) => [l.link.propertyId, l.title])).toEqual(listings.map((l) => [l.id, l.title]));
  });

  it('answers 404 through the manual path for an unknown Lead and for a Lead asked for from another tenant', async () => {
    // Prepare
    const leadId = await newLead();
    const [listing] = await newListings(1);
    const elsewhere = (await createTenantFromAdmin({ slug: unique('act'), name: 'Elsewhere' })).tenantId;
    // Act
    const foreignLead = await failure(
      linkListingManually(elsewhere, leadId, { property_id: listing!.id, role: 'owner' }),
    );
    const unknownLead = await failure(
      linkListingManually(tenantId, randomUUID(), { property_id: listing!.id, role: 'owner' }),
    );
    // Assess
    expect(foreignLead).toBeInstanceOf(NotFoundError);
    expect(unknownLead).toBeInstanceOf(NotFoundError);
    expect(await listLinkedListings(tenantId, leadId)).toEqual([]);
  });
});
