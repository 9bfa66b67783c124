import { setTimeout as sleep } from 'node:timers/promises';
import {
  clearCatalogueRebuild,
  dueCatalogueRebuilds,
  markCatalogueRebuildDue,
} from '../data/catalogue-rebuilds.ts';
import { queryAllListings, queryListingsUpdatedSince } from '../data/listings.ts';
import { logger } from '../kernel/logger.ts';
import { catalogueStore } from '../kernel/ports/catalogue-store.ts';
import { decodeSnapshot, writeSnapshot } from './catalogue-snapshot.ts';
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
  /**
   * Whether the snapshot was stored. False when another rebuild rewrote the Tenant's snapshot after
   * this one read it: the write names the version it replaces, and S3 refused it, so an older
   * rebuild that finishes last never overwrites a newer snapshot.
   */
  written: boolean;
}

/** Tries of a rebuild from the table (the admin command) that other rebuilds keep superseding. */
export const TABLE_REBUILD_ATTEMPTS = 3;

/**
 * Rebuilds the Tenant's snapshot. By default from the previous snapshot and the changes since its
 * watermark (one GET, one short Query): a bulk import's rebuilds then read only what changed. The
 * whole listing index is read when there is no usable snapshot, or when `fromTable` (the admin
 * command). `step` reports its three steps (read, build, write) as they finish.
 *
 * The write is conditional on the stored snapshot being the one read (its version; none when there
 * was none): rebuilds of one Tenant can overlap (the schedule delivers at least once, a failed run is
 * retried while the next starts), and the one that read first may write last. When superseded, the
 * result says `written: false` and nothing is stored: a scheduled run marks the Tenant due again
 * (rebuildDueTenant), a rebuild from the table tries again, up to TABLE_REBUILD_ATTEMPTS times.
 */
export async function rebuildCatalogueSnapshot(
  tenantId: string,
  options: { fromTable?: boolean; step?: (done: number, total: number) => void } = {},
): Promise<CatalogueRebuildResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await rebuildOnce(tenantId, options);
    if (result.written || !options.fromTable || attempt >= TABLE_REBUILD_ATTEMPTS) return result;
  }
}

async function rebuildOnce(
  tenantId: string,
  options: { fromTable?: boolean; step?: (done: number, total: number) => void },
): Promise<CatalogueRebuildResult> {
  const step = options.step ?? (() => undefined);
  // Read even from the table: the write names the version it replaces. A failed read fails the
  // rebuild (the marker is put back): without the version, nothing could be written safely.
  const stored = await catalogueStore().read(tenantId);
  let previous: Catalogue | undefined;
  if (stored && !options.fromTable) {
    try {
      const decoded = decodeSnapshot(tenantId, stored.body);
      previous = catalogueFromSnapshot(decoded.snapshot, decoded.textLength);
    } catch (error) {
      logger.warn('catalogue snapshot unusable: rebuilding from the table', {
        tenantId,
        error: error as Error,
      });
    }
  }
  const c = previous ?? emptyCatalogue(tenantId);
  const items = previous?.watermark
    ? await queryListingsUpdatedSince(tenantId, catchUpSince(previous.watermark))
    : await queryAllListings(tenantId);
  step(1, 3);
  applyListings(c, items);
  step(2, 3);
  const { written, storedBytes } = await writeSnapshot(snapshotOf(c), stored?.version ?? null);
  step(3, 3);
  return {
    tenantId,
    source: previous ? 'catch-up' : 'table',
    listings: c.listings.size,
    watermark: c.watermark,
    storedBytes,
    written,
  };
}

/**
 * The rebuilder's run: each Tenant whose marker is due, rebuilt (rebuildDueTenant); the others go on
 * when one fails.
 */
export async function runDueCatalogueRebuilds(now = new Date()): Promise<CatalogueRebuildResult[]> {
  const done: CatalogueRebuildResult[] = [];
  for (const tenantId of await dueCatalogueRebuilds(now.toISOString())) {
    const result = await rebuildDueTenant(tenantId, now);
    if (result) done.push(result);
  }
  return done;
}

/**
 * One due Tenant of a run: its marker removed first (a change from then on marks it again), then its
 * snapshot rebuilt. A rebuild that fails, or that another run's rewrite superseded (its write
 * refused), puts the marker back, due at once, so that the next run rebuilds from the snapshot that
 * won and the changes since. The rebuild it stored, or undefined.
 */
export async function rebuildDueTenant(
  tenantId: string,
  now: Date,
): Promise<CatalogueRebuildResult | undefined> {
  await clearCatalogueRebuild(tenantId);
  let result: CatalogueRebuildResult;
  try {
    result = await rebuildCatalogueSnapshot(tenantId);
  } catch (error) {
    logger.error('catalogue rebuild failed: marked due again', { tenantId, error: error as Error });
    await markCatalogueRebuildDue(tenantId, now.toISOString());
    return undefined;
  }
  if (result.written) return result;
  logger.info('catalogue rebuild superseded by another run: marked due again', { tenantId });
  await markCatalogueRebuildDue(tenantId, now.toISOString());
  return undefined;
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
