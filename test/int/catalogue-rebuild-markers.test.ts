/**
 * The catalogue rebuild markers the stream reaction puts (services/catalogue-snapshot.ts) against
 * the rebuilder's removal of them (services/catalogue-rebuild.ts), on DynamoDB Local: a change that
 * comes after a rebuild started always leaves a marker, so the snapshot never stays without it.
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  clearCatalogueRebuild,
  dueCatalogueRebuilds,
  markCatalogueRebuildDue,
} from '../../functions/data/catalogue-rebuilds.ts';
import {
  forgetRebuildRequests,
  REBUILD_DEBOUNCE_MS,
  requestCatalogueRebuild,
} from '../../functions/services/catalogue-snapshot.ts';

/** Whether the Tenant has a marker, whenever due (a consistent Query of the markers). */
const marked = async (tenantId: string) =>
  (await dueCatalogueRebuilds(new Date(Date.now() + 10 * REBUILD_DEBOUNCE_MS).toISOString())).includes(
    tenantId,
  );

beforeEach(() => forgetRebuildRequests());

describe('catalogue rebuild markers', () => {
  it("a change after the rebuilder removed another container's marker puts a new one, however soon", async () => {
    // Prepare: another container's marker, due; this container's change finds it there
    const tenantId = randomUUID();
    const now = Date.now();
    await markCatalogueRebuildDue(tenantId, new Date(now - 1_000).toISOString());
    await requestCatalogueRebuild(tenantId, now);
    // Act: the rebuilder removes the marker before it reads; a change lands 5 s later
    await clearCatalogueRebuild(tenantId);
    await requestCatalogueRebuild(tenantId, now + 5_000);
    // Assess
    expect(await marked(tenantId)).toBe(true);
  });

  it('a burst of changes in one container puts its marker once', async () => {
    // Prepare
    const tenantId = randomUUID();
    const now = Date.now();
    await requestCatalogueRebuild(tenantId, now);
    // Act: the marker taken away (as only a test can, within the debounce), more changes of the burst
    await clearCatalogueRebuild(tenantId);
    for (let i = 1; i <= 5; i++) await requestCatalogueRebuild(tenantId, now + i * 1_000);
    // Assess: remembered, no write: the marker it put cannot have been due yet
    expect(await marked(tenantId)).toBe(false);
  });
});
