/**
 * What DynamoDB does and DynamoDB Local never does: eventually consistent
 * reads that lag a write, and transactions cancelled because another one was on the same item. Each
 * test forces the fault for the calls it makes (withDynamoFaults), whatever the run's settings.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { getLead } from '../../functions/data/leads.ts';
import { findListingClaim, getListing } from '../../functions/data/listings.ts';
import { getTenant } from '../../functions/data/tenants.ts';
import { ConflictError } from '../../functions/kernel/errors.ts';
import { addActivity } from '../../functions/services/activities.ts';
import type { Caller } from '../../functions/services/caller.ts';
import { createListing, editListing, writerOf } from '../../functions/services/listings.ts';
import { createTenantFromAdmin } from '../../functions/services/tenants.ts';
import { withDynamoFaults } from '../../scripts/local/dynamodb-faults.ts';
import { createTestLead, createTestPlaces, unique } from '../support/factories.ts';

/** Every eventually consistent read answers as of a minute ago: anything written since is unseen. */
const LAGGING_READS = { staleRate: 1, staleMs: 60_000 } as const;

/** The next transaction is cancelled once for a conflict on member `member`, then DynamoDB agrees. */
const conflictOnce = (member: number) => ({ conflicts: { count: 1, member } });

let placeCode: string;
let caller: Caller;
beforeAll(async () => {
  placeCode = (await createTestPlaces()).town.code;
  const tenant = await createTenantFromAdmin({ slug: unique('consistency'), name: 'Consistent Realty' });
  caller = {
    tenant,
    apiKey: { id: randomUUID(), name: 'int-key', scopes: ['properties:write'], tenantId: tenant.tenantId },
  };
});

describe('eventually consistent reads right after a write', () => {
  it('answers an edit with the listing as written, not the version an eventually consistent read still sees', async () => {
    // Prepare
    const { record } = await createListing(
      writerOf(caller),
      { title: 'Casa Vieja', place_code: placeCode },
      undefined,
    );
    // Act
    const edited = await withDynamoFaults(LAGGING_READS, () =>
      editListing(writerOf(caller), record.id, { title: 'Casa Nueva', bedrooms: 3 }, undefined),
    );
    // Assess
    expect(edited.record).toMatchObject({
      id: record.id,
      title: 'Casa Nueva',
      bedrooms: 3,
      slug: 'casa-nueva',
    });
    const stored = await getListing(caller.tenant.tenantId, record.id, { consistent: true });
    expect(stored).toMatchObject({ title: 'Casa Nueva', bedrooms: 3, updatedAt: edited.record.updatedAt });
  });

  it('adds an Activity to a Lead and a listing created a moment ago', async () => {
    // Prepare
    const leadId = await createTestLead(caller.tenant.tenantId);
    const { record } = await createListing(
      writerOf(caller),
      { title: 'Casa Azul', place_code: placeCode },
      undefined,
    );
    // Act
    const activity = await withDynamoFaults(LAGGING_READS, () =>
      addActivity({ tenantId: caller.tenant.tenantId, name: 'int-key' }, leadId, {
        kind: 'call',
        title: 'First call',
        property_id: record.id,
      }),
    );
    // Assess
    expect(activity).toMatchObject({ leadId, propertyId: record.id, title: 'First call' });
  });
});

describe('transactions cancelled for a conflict', () => {
  it('creates a listing whose slug claim conflicted once under its own slug, not a suffixed one', async () => {
    // Act: member 0 is the slug's claim.
    const { record } = await withDynamoFaults(conflictOnce(0), () =>
      createListing(writerOf(caller), { title: 'Villa Conflicto', place_code: placeCode }, undefined),
    );
    // Assess
    expect(record.slug).toBe('villa-conflicto');
    expect(
      await findListingClaim(caller.tenant.tenantId, 'property-slug', 'villa-conflicto', {
        consistent: true,
      }),
    ).toMatchObject({ ownerId: record.id });
  });

  it('creates a listing whose internal_ref claim conflicted once instead of answering "internal_ref taken"', async () => {
    // Prepare
    const ref = unique('REF');
    // Act: member 1 is the internal_ref's claim.
    const { record } = await withDynamoFaults(conflictOnce(1), () =>
      createListing(
        writerOf(caller),
        { title: 'Villa Ref', internal_ref: ref, place_code: placeCode },
        undefined,
      ),
    );
    // Assess
    expect(record.internalRef).toBe(ref);
    expect(await getListing(caller.tenant.tenantId, record.id, { consistent: true })).toMatchObject({
      internalRef: ref,
    });
  });

  it('writes a Lead whose email claim conflicted once instead of reading the email as taken', async () => {
    // Prepare
    const email = `${unique('conflict')}@example.com`;
    // Act: member 0 is the email's claim.
    const id = await withDynamoFaults(conflictOnce(0), () =>
      createTestLead(caller.tenant.tenantId, { email }),
    );
    // Assess
    expect(await getLead(caller.tenant.tenantId, id, { consistent: true })).toMatchObject({ email });
  });

  it('creates a Tenant whose slug claim conflicted once instead of answering "slug taken"', async () => {
    // Prepare
    const slug = unique('conflict');
    // Act
    const tenant = await withDynamoFaults(conflictOnce(0), () =>
      createTenantFromAdmin({ slug, name: 'Racing Realty' }),
    );
    // Assess
    expect(tenant).toMatchObject({ slug });
    expect(await getTenant(tenant.tenantId, { consistent: true })).toMatchObject({ slug });
  });

  it('answers 409 "written concurrently" when every attempt conflicts, and writes nothing', async () => {
    // Prepare
    const ref = unique('REF');
    // Act
    const error = await withDynamoFaults({ conflicts: { count: 100, member: 1 } }, () =>
      createListing(
        writerOf(caller),
        { title: 'Villa Ocupada', internal_ref: ref, place_code: placeCode },
        undefined,
      ),
    ).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toMatch(/written concurrently/);
    expect(
      await findListingClaim(caller.tenant.tenantId, 'property-ref', ref, { consistent: true }),
    ).toBeUndefined();
  });
});
