import { setTimeout as sleep } from 'node:timers/promises';
import {
  clearCatalogueRebuild,
  dueCatalogueRebuilds,
  markCatalogueRebuildDue,
} from '../data/catalogue-rebuilds.ts';
import { queryAllListings, queryListingsUpdatedSince } from '../data/listings.ts';
import { logger } from '../kernel/logger.ts';
import { readSnapshot, writeSnapshot } from './catalogue-snapshot.ts';
import {
  applyListings,
  type Catalogue,
  catalogueFromSnapshot,
  catchUpSince,
  emptyCatalogue,
  snapshotOf,
} from './site-catalogue.ts';

/** What a rebuild did: from what, how many live listings, how large the stored snapshot is. */
export interface CatalogueRebuildResult {
  tenantId: string;
  /** `catch-up`: the previous snapshot and the changes since; `table`: every listing read. */
  source: 'catch-up' | 'table';
  listings: number;
  watermark: string | undefined;
  storedBytes: number;
}

/**
 * Rebuilds the Tenant's snapshot. By default from the previous snapshot and the changes since its
 * watermark (one GET, one short Query): a bulk import's rebuilds then read only what changed. The
 * whole listing index is read when there is no usable snapshot, or when `fromTable` (the admin
 * command). `step` reports its three steps (read, build, write) as they finish.
 */
export async function rebuildCatalogueSnapshot(
  tenantId: string,
  options: { fromTable?: boolean; step?: (done: number, total: number) => void } = {},
): Promise<CatalogueRebuildResult> {
  const step = options.step ?? (() => undefined);
  let previous: Catalogue | undefined;
  if (!options.fromTable) {
    const stored = await readSnapshot(tenantId).catch((error: unknown) => {
      logger.warn('catalogue snapshot unusable: rebuilding from the table', {
        tenantId,
        error: error as Error,
      });
      return undefined;
    });
    previous = stored ? catalogueFromSnapshot(stored.snapshot, stored.textLength) : undefined;
  }
  const c = previous ?? emptyCatalogue(tenantId);
  const items = previous?.watermark
    ? await queryListingsUpdatedSince(tenantId, catchUpSince(previous.watermark))
    : await queryAllListings(tenantId);
  step(1, 3);
  applyListings(c, items);
  step(2, 3);
  const storedBytes = await writeSnapshot(snapshotOf(c));
  step(3, 3);
  return {
    tenantId,
    source: previous ? 'catch-up' : 'table',
    listings: c.listings.size,
    watermark: c.watermark,
    storedBytes,
  };
}

/**
 * The rebuilder's run: each Tenant whose marker is due, its marker removed first (a change from then
 * on marks it again), then its snapshot rebuilt. A rebuild that fails puts the marker back, due at
 * once, so the next run tries again; the others go on.
 */
export async function runDueCatalogueRebuilds(now = new Date()): Promise<CatalogueRebuildResult[]> {
  const done: CatalogueRebuildResult[] = [];
  for (const tenantId of await dueCatalogueRebuilds(now.toISOString())) {
    await clearCatalogueRebuild(tenantId);
    try {
      done.push(await rebuildCatalogueSnapshot(tenantId));
    } catch (error) {
      logger.error('catalogue rebuild failed: marked due again', { tenantId, error: error as Error });
      await markCatalogueRebuildDue(tenantId, now.toISOString());
    }
  }
  return done;
}

/**
 * How long one scheduled run goes on rebuilding the markers that come due after it started: until
 * shortly before the next run (the schedule is every minute), so that two runs never rebuild at once.
 * A marker due at D is then rebuilt by D + REBUILD_POLL_MS when D falls in a run's window, and by
 * the next run (D + 10 s at most) otherwise; with the 30 s debounce a change is in the snapshot within
 * about 45 s, where one pass per minute gave up to 90 s (debounce + the schedule's period).
 */
export const REBUILD_WINDOW_MS = 50_000;
export const REBUILD_POLL_MS = 5_000;

export interface RebuildLoop {
  runDue: (now: Date) => Promise<CatalogueRebuildResult[]>;
  /** Whether any marker is due by `by` (one consistent Query of the markers). */
  anyDueBy: (by: Date) => Promise<boolean>;
  now: () => Date;
  sleep: (ms: number) => Promise<unknown>;
}

const REBUILD_LOOP: RebuildLoop = {
  runDue: runDueCatalogueRebuilds,
  anyDueBy: async (by) => (await dueCatalogueRebuilds(by.toISOString())).length > 0,
  now: () => new Date(),
  sleep: (ms) => sleep(ms),
};

/**
 * A scheduled run: the due rebuilds, then, while a marker comes due before `until`, the same again
 * every REBUILD_POLL_MS. With no marker coming due it returns at once (an idle minute costs one
 * Query, as before).
 */
export async function runCatalogueRebuildsUntil(
  until: Date,
  loop: RebuildLoop = REBUILD_LOOP,
): Promise<CatalogueRebuildResult[]> {
  const done: CatalogueRebuildResult[] = [];
  for (;;) {
    done.push(...(await loop.runDue(loop.now())));
    if (loop.now().getTime() + REBUILD_POLL_MS > until.getTime()) return done;
    if (!(await loop.anyDueBy(until))) return done;
    await loop.sleep(REBUILD_POLL_MS);
  }
}
