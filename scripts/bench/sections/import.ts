/**
 * A bulk listing import under throttling and how soon the catalogue snapshot covers it (`--only
 * import`, docs/bench.md). The run is a child process of its own (import-child.ts), so that its
 * faults and its stream reader touch nothing else; this file holds the pure parts and the report.
 */
import type { ImportSummary } from '../../../functions/services/listing-import.ts';
import { runChild } from '../child.ts';
import { type BenchContext, defineSection } from '../context.ts';
import { type Column, round, table } from '../stats.ts';

export const IMPORT_SNAPSHOT_TARGET_MS = 60_000;

/** Failures by error, ids and numbers in the messages folded together. */
export function failuresByError(failures: ImportSummary['failures']): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { error } of failures) {
    const kind = error.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '<id>').replace(/\d+/g, 'N');
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

export type ImportRun = ReturnType<typeof importRun>;

/** One run's figures from its summary and duration (`throttled`, or `resume`: the same feed again). */
export function importRun(label: string, throttleRate: number, summary: ImportSummary, elapsedMs: number) {
  const { failures, ...counts } = summary;
  return {
    label,
    throttleRate,
    summary: counts,
    failuresByError: failuresByError(failures),
    sampleFailures: failures.slice(0, 3),
    elapsedSeconds: round(elapsedMs / 1000, 1),
    itemsPerSecond: round(summary.total / Math.max(elapsedMs / 1000, 0.001), 1),
  };
}

/** One rewrite of the Tenant's snapshot, as the store saw it (`at`: epoch ms it landed). */
export interface SnapshotRewrite {
  at: number;
  watermark: string | undefined;
  listings: number;
  bytes: number;
}

/**
 * Rewrites during the imports (to `importsEndedAt`) and after, and the lag from the last write (the
 * rewrites' clock) to the first rewrite whose watermark covers it.
 */
export function snapshotFigures(
  rewrites: readonly SnapshotRewrite[],
  importsEndedAt: number,
  lastUpdatedAt: string,
  liveListingsInTable: number,
) {
  const covering = rewrites.find((r) => r.watermark !== undefined && r.watermark >= lastUpdatedAt);
  const coveredAfterMs = covering ? Math.max(0, covering.at - Date.parse(lastUpdatedAt)) : null;
  return {
    rewritesDuringImport: rewrites.filter((r) => r.at <= importsEndedAt).length,
    rewritesAfterImport: rewrites.filter((r) => r.at > importsEndedAt).length,
    lastWriteAt: lastUpdatedAt,
    coveredAfterMs,
    withinTarget: coveredAfterMs !== null && coveredAfterMs <= IMPORT_SNAPSHOT_TARGET_MS,
    bytes: covering?.bytes ?? null,
    listings: covering?.listings ?? null,
    liveListingsInTable,
  };
}

/** The child's input: where DynamoDB Local is, and the section's options. */
export type ImportInput = Awaited<ReturnType<typeof inputOf>>;
const inputOf = async (ctx: BenchContext) => ({
  endpoint: (await ctx.service()).endpoint,
  listings: ctx.num('import-listings'),
  throttleRate: ctx.num('throttle-rate'),
  concurrency: ctx.num('import-concurrency'),
  schedule: ctx.text('rebuild-schedule') as 'minute' | 'local',
  coverTimeoutSeconds: ctx.num('cover-timeout'),
});

export interface ImportSection extends Omit<ImportInput, 'endpoint' | 'coverTimeoutSeconds'> {
  rebuildEveryMs: number;
  debounceMs: number;
  /** The faults every DynamoDB call of the section meets besides the first run's throttles. */
  faults: string;
  runs: ImportRun[];
  snapshot: ReturnType<typeof snapshotFigures>;
}

export function renderImport(s: ImportSection): string[] {
  const n = s.snapshot;
  const lag = n.coveredAfterMs === null ? 'not covered' : `${round(n.coveredAfterMs / 1000, 1)} s`;
  const errors = (r: ImportRun) =>
    Object.entries(r.failuresByError)
      .map(([e, k]) => `${k}× ${e.slice(0, 80)}`)
      .join('; ') || '—';
  const schedule =
    s.schedule === 'minute' ? "AWS's schedule (each whole minute)" : 'the local stack schedule';
  return [
    `${s.listings} listings, throttled at ${s.throttleRate} past the SDK's retries, ${s.concurrency === 1 ? 'one item' : `${s.concurrency} items`} at once.`,
    '',
    ...table<ImportRun>(
      [
        ['run (throttled past the SDK retries)', (r) => `${r.label} (${r.throttleRate})`],
        ['items/s', (r) => r.itemsPerSecond],
        ...(['created', 'updated', 'skipped', 'failed'] as const).map(
          (k): Column<ImportRun> => [k, (r) => r.summary[k]],
        ),
        ['elapsed s', (r) => r.elapsedSeconds],
        ['failures by error', errors],
      ],
      s.runs,
    ),
    '',
    `Snapshot: ${n.rewritesDuringImport} rewrites during the imports, ${n.rewritesAfterImport} after; last write ${n.lastWriteAt} → covered after ${lag} (target ≤ ${IMPORT_SNAPSHOT_TARGET_MS / 1000} s ${n.withinTarget ? 'met' : 'MISSED'}); ` +
      `${n.listings ?? '—'} listings (${n.liveListingsInTable} live in the table${n.listings === n.liveListingsInTable ? '' : ', MISMATCH'}), ${n.bytes === null ? '—' : `${round(n.bytes / 1024, 1)} KB`} gzipped.`,
    `Rebuilder: ${schedule} every ${s.rebuildEveryMs / 1000} s, debounce ${s.debounceMs / 1000} s. Every call: ${s.faults}.`,
  ];
}

export const importSection = defineSection({
  name: 'import',
  about: 'a bulk listing import under throttling, its resume, and how soon the catalogue snapshot covers it',
  optIn: true,
  run: async (ctx) => runChild<ImportSection>('sections/import-child.ts', await inputOf(ctx)),
  render: renderImport,
});
