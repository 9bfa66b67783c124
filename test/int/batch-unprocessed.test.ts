import { afterEach, describe, expect, it } from 'vitest';
import { addRuleMemberships, membershipsOfListing, removeMemberships } from '../../functions/data/areas.ts';
import { BATCH_ATTEMPTS, BatchIncompleteError } from '../../functions/data/batch.ts';
import { getPlaces } from '../../functions/data/lead-criteria.ts';
import { recordSent, sentAtByListing } from '../../functions/data/matches.ts';
import { createTestPlaces, unique } from '../support/factories.ts';
import { injectUnprocessedBatches, type UnprocessedInjection } from '../support/unprocessed-batches.ts';

let injection: UnprocessedInjection | undefined;
afterEach(() => {
  injection?.remove();
  injection = undefined;
});

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const areas = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: unique('area'), kind: 'region' as const, name: `Area ${i}` }));

describe('batch calls with unprocessed items (a throttled table)', () => {
  it('addRuleMemberships and removeMemberships retry what DynamoDB left unprocessed', async () => {
    // Prepare
    const tenantId = unique('t');
    const propertyId = unique('p');
    const labels = areas(4);
    injection = injectUnprocessedBatches({ calls: 3, keep: 1 });
    // Act
    await addRuleMemberships(tenantId, propertyId, labels);
    const added = await membershipsOfListing(tenantId, propertyId);
    injection.remove();
    injection = injectUnprocessedBatches({ calls: 3, keep: 1 });
    await removeMemberships(
      tenantId,
      propertyId,
      labels.map((a) => a.id),
    );
    const left = await membershipsOfListing(tenantId, propertyId);
    // Assess
    expect(added.map((m) => m.areaId).sort()).toEqual(labels.map((a) => a.id).sort());
    expect(left).toEqual([]);
    expect(injection.batchCalls).toBe(4);
  });

  it('getPlaces asks again for unread keys instead of taking them for unknown Places', async () => {
    // Prepare
    const places = await createTestPlaces();
    const codes = [places.country.code, places.region.code, places.town.code];
    // Four answers in a row with nothing read: more than a few quick retries can absorb.
    injection = injectUnprocessedBatches({ calls: 4, keep: 0 });
    // Act
    const found = await getPlaces(codes);
    // Assess
    expect([...found.keys()].sort()).toEqual([...codes].sort());
    expect(injection.batchCalls).toBe(5);
  });

  it('recordSent records every listing through unprocessed answers', async () => {
    // Prepare
    const tenantId = unique('t');
    const leadId = unique('lead');
    const ids = [unique('p'), unique('p'), unique('p')];
    const sentAt = new Date().toISOString();
    injection = injectUnprocessedBatches({ calls: 4, keep: 0 });
    // Act
    await recordSent(tenantId, leadId, ids, sentAt);
    // Assess
    const sent = await sentAtByListing(tenantId, leadId);
    expect(Object.fromEntries(sent)).toEqual(Object.fromEntries(ids.map((id) => [id, sentAt])));
  });

  it('fails loudly, with a typed error, when items remain unprocessed after every attempt', async () => {
    // Prepare
    const tenantId = unique('t');
    const leadId = unique('lead');
    const ids = Array.from({ length: BATCH_ATTEMPTS + 2 }, () => unique('p'));
    injection = injectUnprocessedBatches({ calls: 1000, keep: 1 });
    // Act
    const error = await failure(recordSent(tenantId, leadId, ids, new Date().toISOString()));
    // Assess
    expect(error).toBeInstanceOf(BatchIncompleteError);
    expect(error).toMatchObject({ statusCode: 503, remaining: 2, operation: 'recordSent' });
    expect(injection.batchCalls).toBe(BATCH_ATTEMPTS);
  });
});
