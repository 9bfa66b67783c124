/**
 * The pure parts of the import section of the bench (issue 25: a 50,000-listing `listing import`
 * under throttling, and how soon the catalogue snapshot covers it): the generated feed, the grouping
 * of an import's failures, the snapshot figures drawn from the log of its rewrites, and the table.
 * The section itself (import.ts, import-child.ts) runs the real import, stream consumer and
 * rebuilder; test/unit/bench-import.test.ts checks these parts.
 */
import type { ImportSummary } from '../../functions/services/listing-import.ts';
import { prng, weighted } from './lead-data.ts';
import { round } from './stats.ts';

/** The issue's figure: the snapshot covers the import's last write within this long. */
export const IMPORT_SNAPSHOT_TARGET_MS = 60_000;

/** Where the feed's listings are: towns of the demo Place catalogue (createFixture loads them). */
export const IMPORT_PLACES: readonly (readonly [string, number])[] = [
  ['ES-MA-MAR', 30],
  ['ES-MA-EST', 20],
  ['ES-MA-BEN', 15],
  ['ES-MA-MLG', 15],
  ['ES-IB-PMI', 10],
  ['PT-FAR-LAG', 10],
];

const KINDS: readonly (readonly [string, number])[] = [
  ['apartment', 50],
  ['villa', 20],
  ['townhouse', 15],
  ['penthouse', 10],
  ['plot', 5],
];

const AMENITIES = ['pool', 'sea_view', 'garden', 'terrace', 'air_conditioning', 'private_parking'] as const;

/**
 * `count` valid listings in the create shape, each with its own internal_ref (`<prefix>-<n>`), a Place
 * (so each is live once imported), a sale price or a rent, and varied facts and texts; the same
 * arguments give the same feed (a seeded generator), so a second run of it is the resume.
 * `ai_enrichment: false`: the bench measures the import and the snapshot, not the AI queue.
 */
export function importFeed(count: number, prefix: string, seed = 25): Record<string, unknown>[] {
  const rand = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const kind = weighted(rand, KINDS);
    const rent = rand() < 0.25;
    const bedrooms = kind === 'plot' ? 0 : 1 + Math.floor(rand() * 5);
    const amenities = AMENITIES.filter(() => rand() < 0.3);
    const price = Math.round((rent ? 600 + rand() * 6_000 : 120_000 + rand() * 2_500_000) / 100) * 100;
    return {
      internal_ref: `${prefix}-${i + 1}`,
      title: `${bedrooms ? `${bedrooms}-bedroom ` : ''}${kind} ${i + 1}`,
      description: `A ${kind} from the bench feed, number ${i + 1}${amenities.length ? `, with ${amenities.join(', ').replaceAll('_', ' ')}` : ''}.`,
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

/** How many failures of an import each error had (ids and numbers in messages folded together). */
export function failuresByError(failures: ImportSummary['failures']): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { error } of failures) {
    const kind = error
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
      .replace(/\d+/g, 'N');
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/** One run of the feed through `importListings`. */
export interface ImportRun {
  /** `throttled`: at the section's rate past the SDK's retries; `resume`: the same feed again. */
  label: string;
  /** The share of its DynamoDB calls throttled past the SDK's retries. */
  throttleRate: number;
  summary: Omit<ImportSummary, 'failures'>;
  failuresByError: Record<string, number>;
  /** The first few failures as reported, for the note. */
  sampleFailures: ImportSummary['failures'];
  elapsedSeconds: number;
  itemsPerSecond: number;
}

/** A run's figures from its summary and duration. */
export function importRun(
  label: string,
  throttleRate: number,
  summary: ImportSummary,
  elapsedMs: number,
): ImportRun {
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

/** One rewrite of the Tenant's snapshot, as the store saw it. */
export interface SnapshotRewrite {
  /** Epoch ms when the store finished writing it. */
  at: number;
  watermark: string | undefined;
  listings: number;
  bytes: number;
}

export interface SnapshotFigures {
  rewritesDuringImport: number;
  rewritesAfterImport: number;
  /** The last write of the imports: the largest `updatedAt` in the table. */
  lastWriteAt: string;
  /** From the last write to the first rewrite whose watermark covers it; null if none did. */
  coveredAfterMs: number | null;
  withinTarget: boolean;
  /** The covering rewrite's size (gzipped) and listing count, and the table's live listings. */
  bytes: number | null;
  listings: number | null;
  liveListingsInTable: number;
}

/**
 * The snapshot's figures: rewrites while the imports ran (up to `importsEndedAt`) and after, and
 * the lag from the last write (`lastUpdatedAt`, the same clock as the rewrites') to the first
 * rewrite that covers it.
 */
export function snapshotFigures(
  rewrites: readonly SnapshotRewrite[],
  importsEndedAt: number,
  lastUpdatedAt: string,
  liveListingsInTable: number,
): SnapshotFigures {
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

/** The rebuilder's schedule in the section: AWS's (each whole minute) or the local stack's. */
export type RebuildSchedule = 'minute' | 'local';

export interface ImportSection {
  listings: number;
  throttleRate: number;
  /** Items the import ran at once. */
  concurrency: number;
  schedule: RebuildSchedule;
  /** The rebuilder's period in the run, ms. */
  rebuildEveryMs: number;
  debounceMs: number;
  /** The faults every DynamoDB call of the section meets besides the first run's throttles. */
  faults: string;
  runs: ImportRun[];
  snapshot: SnapshotFigures;
}

const signed = (n: number) => String(n);

/** The section's lines of the report. */
export function renderImport(s: ImportSection): string[] {
  const lines = [
    '',
    `## Listing import (issue 25): ${s.listings} listings, throttled at ${s.throttleRate} past the SDK's retries, ${s.concurrency === 1 ? 'one item' : `${s.concurrency} items`} at once`,
    '',
    '| run (throttled past the SDK retries) | items/s | created | updated | skipped | failed | elapsed s | failures by error |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of s.runs) {
    const errors = Object.entries(r.failuresByError)
      .map(([error, n]) => `${n}× ${error.slice(0, 80)}`)
      .join('; ');
    lines.push(
      `| ${r.label} (${r.throttleRate}) | ${r.itemsPerSecond} | ${signed(r.summary.created)} | ${signed(r.summary.updated)} | ${signed(r.summary.skipped)} | ${signed(r.summary.failed)} | ${r.elapsedSeconds} | ${errors || '—'} |`,
    );
  }
  const n = s.snapshot;
  const lag = n.coveredAfterMs === null ? 'not covered' : `${round(n.coveredAfterMs / 1000, 1)} s`;
  lines.push(
    '',
    `Snapshot: ${n.rewritesDuringImport} rewrites during the imports, ${n.rewritesAfterImport} after; ` +
      `last write ${n.lastWriteAt} → covered after ${lag} (target ≤ ${IMPORT_SNAPSHOT_TARGET_MS / 1000} s ${n.withinTarget ? 'met' : 'MISSED'}); ` +
      `${n.listings ?? '—'} listings (${n.liveListingsInTable} live in the table${n.listings === n.liveListingsInTable ? '' : ', MISMATCH'}), ` +
      `${n.bytes === null ? '—' : `${round(n.bytes / 1024, 1)} KB`} gzipped.`,
    `Rebuilder: ${s.schedule === 'minute' ? "AWS's schedule (each whole minute)" : 'the local stack schedule'} every ${s.rebuildEveryMs / 1000} s, debounce ${s.debounceMs / 1000} s. Every call: ${s.faults}.`,
  );
  return lines;
}
