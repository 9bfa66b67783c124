/**
 * A bulk listing import under throttling (`--only import`): a generated feed of N live listings
 * through `importListings` as `admin listing import` runs it, every DynamoDB call of the first run
 * throttled at `--throttle-rate` past the SDK's retries, then the same feed again (the resume); and
 * how soon the catalogue snapshot covers the last write (target ≤ 60 s), with the real stream
 * consumer and rebuilder. The run is a child process of its own (import-child.ts), so that its faults
 * and its stream reader touch nothing else; this file holds the pure parts and the report.
 */
import type { ImportSummary } from '../../../functions/services/listing-import.ts';
import { runChild } from '../child.ts';
import { defineSection } from '../context.ts';
import { prng, weighted, weights } from '../data.ts';
import { round, table } from '../stats.ts';

export const IMPORT_SNAPSHOT_TARGET_MS = 60_000;
/** Where the feed's listings are: towns of the demo Place catalogue. */
export const IMPORT_PLACES = weights(
  'ES-MA-MAR 30, ES-MA-EST 20, ES-MA-BEN 15, ES-MA-MLG 15, ES-IB-PMI 10, PT-FAR-LAG 10',
);
const KINDS = weights('apartment 50, villa 20, townhouse 15, penthouse 10, plot 5');
const AMENITIES = ['pool', 'sea_view', 'garden', 'terrace', 'air_conditioning', 'private_parking'];

/**
 * `count` valid listings in the create shape, each with its own internal_ref (`<prefix>-<n>`) and a
 * Place (so each is live once imported); the same arguments give the same feed, so a second run of
 * it is the resume. `ai_enrichment: false`: the import and the snapshot are measured, not the AI queue.
 */
export function importFeed(count: number, prefix: string, seed = 25): Record<string, unknown>[] {
  const rand = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const kind = weighted(rand, KINDS);
    const rent = rand() < 0.25;
    const bedrooms = kind === 'plot' ? 0 : 1 + Math.floor(rand() * 5);
    const amenities = AMENITIES.filter(() => rand() < 0.3);
    const price = Math.round((rent ? 600 + rand() * 6_000 : 120_000 + rand() * 2_500_000) / 100) * 100;
    const having = amenities.length ? `, with ${amenities.join(', ').replaceAll('_', ' ')}` : '';
    return {
      internal_ref: `${prefix}-${i + 1}`,
      title: `${bedrooms ? `${bedrooms}-bedroom ` : ''}${kind} ${i + 1}`,
      description: `A ${kind} from the bench feed, number ${i + 1}${having}.`,
      listing_type: rent ? 'rent' : 'sale',
      ...(rent ? { rent_price: String(price) } : { price: String(price) }),
      currency: 'EUR',
      property_type: kind,
      bedrooms,
      ...(kind === 'plot' ? {} : { bathrooms: String(1 + Math.floor(rand() * 3)) }),
      area: String(40 + Math.floor(rand() * 400)),
      amenities,
      place_code: weighted(rand, IMPORT_PLACES),
      ai_enrichment: false,
    };
  });
}

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
 * Rewrites while the imports ran (up to `importsEndedAt`) and after, and the lag from the last write
 * (`lastUpdatedAt`, the same clock as the rewrites') to the first rewrite whose watermark covers it.
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
export interface ImportInput {
  endpoint: string;
  listings: number;
  throttleRate: number;
  concurrency: number;
  schedule: 'minute' | 'local';
  coverTimeoutSeconds: number;
}

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
    ...table(
      'run (throttled past the SDK retries)|items/s|created|updated|skipped|failed|elapsed s|failures by error'.split(
        '|',
      ),
      s.runs.map((r) => {
        const { created, updated, skipped, failed } = r.summary;
        return [
          `${r.label} (${r.throttleRate})`,
          r.itemsPerSecond,
          created,
          updated,
          skipped,
          failed,
          r.elapsedSeconds,
          errors(r),
        ];
      }),
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
  async run(ctx) {
    const input: ImportInput = {
      endpoint: (await ctx.service()).endpoint,
      listings: ctx.num('import-listings'),
      throttleRate: ctx.num('throttle-rate'),
      concurrency: ctx.num('import-concurrency'),
      schedule: ctx.text('rebuild-schedule') as ImportInput['schedule'],
      coverTimeoutSeconds: ctx.num('cover-timeout'),
    };
    return runChild<ImportSection>('sections/import-child.ts', input);
  },
  render: renderImport,
});
