import { setTimeout as sleep } from 'node:timers/promises';
import { PropertyCreate } from '../contract/properties.ts';
import { toValidationIssues } from '../contract/validation.ts';
import { isThrottled } from '../data/errors.ts';
import type { ListingRecord } from '../data/listings.ts';
import type { TenantRecord } from '../data/tenants.ts';
import { ConflictError, RequestValidationError } from '../kernel/errors.ts';
import { recomputeListing } from './areas.ts';
import { upsertListingByRef } from './listings.ts';

export interface ImportSummary {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  /** One line per item that did not land (after its retries), in feed order. */
  failures: { index: number; internal_ref: string | null; error: string }[];
}

/**
 * How an item throttled by DynamoDB is retried: capped exponential backoff with full jitter (a
 * random pause up to `min(capMs, baseMs·2^attempt)`), so that a bulk import backs off a hot
 * partition instead of giving up on the item. 8 attempts span about 13 s at most.
 */
export interface ImportRetry {
  attempts: number;
  baseMs: number;
  capMs: number;
}

export const IMPORT_RETRY: ImportRetry = { attempts: 8, baseMs: 100, capMs: 5_000 };

/** Items in flight at once: each is several DynamoDB round trips in a row, so one at a time leaves the table idle. */
export const IMPORT_CONCURRENCY = 8;

export interface ImportOptions {
  retry?: ImportRetry;
  /** How many items run at once (a positive integer; IMPORT_CONCURRENCY by default). */
  concurrency?: number | undefined;
}

/**
 * DynamoDB refused for capacity, past the SDK's own retries: the SDK's throttling errors (with
 * RequestLimitExceeded, the account's request limit), a transaction cancelled for throttling, or
 * the 409 `writeTransaction` answers once its own attempts were all cancelled so (or for a
 * conflict: both pass, and a retry is the documented answer to both).
 */
export function isPassingRefusal(error: unknown): boolean {
  if (error instanceof ConflictError || isThrottled(error)) return true;
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as { name?: string; CancellationReasons?: { Code?: string }[]; cause?: unknown };
    if (e.name === 'RequestLimitExceeded') return true;
    if (
      e.name === 'TransactionCanceledException' &&
      e.CancellationReasons?.some(
        (r) => r.Code === 'ThrottlingError' || r.Code === 'ProvisionedThroughputExceeded',
      )
    )
      return true;
    current = e.cause;
  }
  return false;
}

const backoff = (retry: ImportRetry, attempt: number) =>
  sleep(Math.random() * Math.min(retry.capMs, retry.baseMs * 2 ** attempt));

type Outcome = 'created' | 'updated' | 'skipped';

/**
 * What a retried item did: an earlier attempt may have landed its write and failed after it (on the
 * Area memberships), so the last attempt finds nothing to change. The record says whether this
 * import wrote it since the item's first attempt; its memberships are computed again (idempotent).
 */
async function outcomeAfterRetry(
  tenantId: string,
  record: ListingRecord,
  writerName: string,
  since: string,
): Promise<Outcome> {
  await recomputeListing(tenantId, record);
  if (record.createdBy === writerName && record.createdAt >= since) return 'created';
  if (record.updatedBy === writerName && record.updatedAt >= since) return 'updated';
  return 'skipped';
}

/**
 * Imports a feed: each item in the create shape with its internal_ref. A new reference creates a
 * listing (origin import); a known one is updated by PATCH rules, except the fields a key edited
 * since (manual edits win); an item that changes nothing is skipped. A bad item is reported and
 * the import goes on; an item DynamoDB refuses for capacity is retried with backoff (`retry`), and
 * reported if it still fails. No item stops the import. Re-running a feed is its resume: items
 * already imported unchanged are skipped by internal_ref (no write to the listing; their Area
 * memberships are checked, and written only if an earlier run failed before them).
 */
export async function importListings(
  tenant: TenantRecord,
  items: unknown[],
  source: string,
  /** Called after each item: how many are done, of how many. */
  progress: (done: number, total: number) => void = () => undefined,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const retry = options.retry ?? IMPORT_RETRY;
  const concurrency = options.concurrency ?? IMPORT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const summary: ImportSummary = {
    total: items.length,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: 0,
    failures: [],
  };
  const writer = { tenant, name: `import:${source}`, via: 'import' as const };
  let done = 0;
  const importOne = async (index: number) => {
    const item = items[index];
    const ref = refOf(item);
    const since = new Date().toISOString();
    for (let attempt = 1; ; attempt++) {
      try {
        if (!ref)
          throw RequestValidationError.single(
            ['internal_ref'],
            'Each imported listing needs its internal_ref',
            'missing',
          );
        const parsed = PropertyCreate.safeParse(item);
        if (!parsed.success) throw new RequestValidationError(toValidationIssues('body', parsed.error, item));
        const result = await upsertListingByRef(writer, ref, parsed.data, undefined);
        let outcome: Outcome;
        if (result.created) outcome = 'created';
        else if (result.changed) outcome = 'updated';
        else if (attempt > 1)
          outcome = await outcomeAfterRetry(tenant.tenantId, result.record, writer.name, since);
        else {
          // Unchanged, but an earlier run may have written it and failed on its Area memberships
          // (reported failed): the resume computes them again (two reads when nothing is missing).
          await recomputeListing(tenant.tenantId, result.record);
          outcome = 'skipped';
        }
        summary[outcome]++;
        break;
      } catch (error) {
        const retryable = !(error instanceof RequestValidationError) && isPassingRefusal(error);
        if (retryable && attempt < retry.attempts) {
          await backoff(retry, attempt);
          continue;
        }
        summary.failed++;
        summary.failures.push({ index, internal_ref: ref, error: (error as Error).message });
        break;
      }
    }
    done++;
    progress(done, items.length);
  };
  // A unit of work is every item of one internal_ref, in feed order: two items of a ref running
  // at once would race on its claim (both creating) or let the earlier item's values win.
  // Items without a ref touch nothing, so each is a unit of its own.
  await runPool(unitsOfWork(items), concurrency, async (indexes) => {
    for (const index of indexes) await importOne(index);
  });
  // Units finish out of feed order.
  summary.failures.sort((a, b) => a.index - b.index);
  return summary;
}

function refOf(item: unknown): string | null {
  const ref = (item as { internal_ref?: unknown } | null)?.internal_ref;
  return typeof ref === 'string' ? ref : null;
}

/** The feed's indexes grouped by internal_ref (each group in feed order), groups in order of first appearance. */
function unitsOfWork(items: unknown[]): number[][] {
  const units: number[][] = [];
  const byRef = new Map<string, number[]>();
  for (const [index, item] of items.entries()) {
    const ref = refOf(item);
    const unit = ref === null ? undefined : byRef.get(ref);
    if (unit) {
      unit.push(index);
      continue;
    }
    const fresh = [index];
    units.push(fresh);
    if (ref !== null) byRef.set(ref, fresh);
  }
  return units;
}

/** Runs `work` on each unit with at most `concurrency` running at once, taking units in order. */
async function runPool<T>(units: T[], concurrency: number, work: (unit: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < units.length) await work(units[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, units.length) }, worker));
}
