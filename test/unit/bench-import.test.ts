import { describe, expect, it } from 'vitest';
import { PropertyCreate } from '../../functions/contract/properties.ts';
import { demoPlaces, importFeed, listingAt, PLACES } from '../../scripts/bench/data.ts';
import {
  failuresByError,
  type ImportSection,
  importRun,
  renderImport,
  type SnapshotRewrite,
  snapshotFigures,
} from '../../scripts/bench/sections/import.ts';

describe('the import bench: the feed', () => {
  it('gives valid, live, varied listings, each with its own internal_ref', () => {
    // Prepare / Act
    const feed = importFeed(500, 'BENCH-X');

    // Assess
    expect(feed).toHaveLength(500);
    for (const item of feed) expect(PropertyCreate.safeParse(item).success).toBe(true);
    expect(new Set(feed.map((i) => i.internal_ref)).size).toBe(500);
    expect(feed[0]?.internal_ref).toBe('BENCH-X-1');
    const placeCodes = new Set(PLACES.map(([code]) => code));
    for (const item of feed) expect(placeCodes.has(item.place_code as string)).toBe(true);
    expect(new Set(feed.map((i) => i.place_code)).size).toBe(PLACES.length);
    expect(new Set(feed.map((i) => i.property_type)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(feed.map((i) => i.listing_type))).toEqual(new Set(['sale', 'rent']));
    expect(feed.every((i) => i.ai_enrichment === false)).toBe(true);
  });

  it('is the same feed for the same arguments, so a second run of it is the resume', () => {
    expect(importFeed(50, 'R')).toEqual(importFeed(50, 'R'));
  });

  it("is the site section's catalogue in the create shape, drafts given their Place", () => {
    // Prepare
    const tenant = {
      tenantId: '5e5e5e5e-0000-4000-8000-000000000000',
      agentIds: ['a1'],
      places: demoPlaces(),
    };

    // Act
    const feed = importFeed(200, 'C');
    const stored = feed.map((_, i) => listingAt(i, tenant) as Record<string, unknown>);

    // Assess: the same titles and prices; the catalogue's drafts have no Place, the feed's all do.
    expect(feed.map((i) => i.title)).toEqual(stored.map((l) => l.title));
    expect(feed.map((i) => i.price ?? i.rent_price)).toEqual(stored.map((l) => l.price ?? l.rentPrice));
    expect(stored.some((l) => !l.placeCode)).toBe(true);
    expect(stored.filter((l, i) => l.placeCode === feed[i]?.place_code).length).toBeGreaterThan(190);
  });
});

describe('the import bench: a run', () => {
  it('counts failures by error, ids and numbers folded together, and gives items per second', () => {
    // Prepare
    const failures = [
      { index: 3, internal_ref: 'A-4', error: 'Throughput exceeds the current capacity (attempt 8)' },
      { index: 9, internal_ref: 'A-10', error: 'Throughput exceeds the current capacity (attempt 8)' },
      {
        index: 12,
        internal_ref: 'A-13',
        error: 'Listing 0c6f7a8e-1b2c-4d3e-8f90-a1b2c3d4e5f6 changed meanwhile',
      },
    ];

    // Act
    const run = importRun(
      'throttled',
      0.05,
      { total: 200, created: 197, updated: 0, skipped: 0, failed: 3, failures },
      4_000,
    );

    // Assess
    expect(failuresByError(failures)).toEqual({
      'Throughput exceeds the current capacity (attempt N)': 2,
      'Listing <id> changed meanwhile': 1,
    });
    expect(run).toMatchObject({
      label: 'throttled',
      summary: { total: 200, created: 197, failed: 3 },
      elapsedSeconds: 4,
      itemsPerSecond: 50,
    });
    expect(run.sampleFailures).toHaveLength(3);
    expect(run.summary).not.toHaveProperty('failures');
  });
});

describe('the import bench: the snapshot figures', () => {
  const last = '2026-11-26T22:00:00.000Z';
  const at = (seconds: number) => Date.parse(last) + seconds * 1000;
  const rewrite = (seconds: number, watermark: string, listings: number): SnapshotRewrite => ({
    at: at(seconds),
    watermark,
    listings,
    bytes: 1000 * listings,
  });

  it('counts rewrites during and after the imports and measures the lag to the first covering one', () => {
    // Prepare
    const rewrites = [
      rewrite(-50, '2026-11-26T21:59:09.000Z', 120),
      rewrite(-5, '2026-11-26T21:59:54.000Z', 480),
      rewrite(20, '2026-11-26T21:59:59.000Z', 499),
      rewrite(41.5, last, 500),
      rewrite(101, last, 500),
    ];

    // Act
    const figures = snapshotFigures(rewrites, at(1), last, 500);

    // Assess
    expect(figures).toEqual({
      rewritesDuringImport: 2,
      rewritesAfterImport: 3,
      lastWriteAt: last,
      coveredAfterMs: 41_500,
      withinTarget: true,
      bytes: 500_000,
      listings: 500,
      liveListingsInTable: 500,
    });
  });

  it('reports a lag past 60 s as missed, and no covering rewrite as not covered', () => {
    const late = snapshotFigures([rewrite(89, last, 500)], at(1), last, 500);
    const never = snapshotFigures([rewrite(30, '2026-11-26T21:59:59.000Z', 499)], at(1), last, 500);

    expect(late).toMatchObject({ coveredAfterMs: 89_000, withinTarget: false });
    expect(never).toMatchObject({ coveredAfterMs: null, withinTarget: false, listings: null, bytes: null });
  });

  it('renders both runs, the failures by error and the snapshot line, a miss and a count mismatch flagged', () => {
    // Prepare
    const section: ImportSection = {
      listings: 500,
      throttleRate: 0.05,
      concurrency: 4,
      schedule: 'minute',
      rebuildEveryMs: 60_000,
      debounceMs: 30_000,
      faults: 'DYNAMODB_FAULTS_STALE_RATE=0.5',
      runs: [
        importRun(
          'throttled',
          0.05,
          {
            total: 500,
            created: 498,
            updated: 0,
            skipped: 0,
            failed: 2,
            failures: [
              { index: 1, internal_ref: 'A-2', error: 'Rate exceeded' },
              { index: 2, internal_ref: 'A-3', error: 'Rate exceeded' },
            ],
          },
          10_000,
        ),
        importRun(
          'resume',
          0,
          { total: 500, created: 2, updated: 0, skipped: 498, failed: 0, failures: [] },
          2_000,
        ),
      ],
      snapshot: snapshotFigures([rewrite(75, last, 499)], at(1), last, 500),
    };

    // Act
    const text = renderImport(section).join('\n');

    // Assess
    expect(text).toContain("500 listings, throttled at 0.05 past the SDK's retries, 4 items at once.");
    expect(text).toContain('| throttled (0.05) | 50 | 498 | 0 | 0 | 2 | 10 | 2× Rate exceeded |');
    expect(text).toContain('| resume (0) | 250 | 2 | 0 | 498 | 0 | 2 | — |');
    expect(text).toContain('covered after 75 s (target ≤ 60 s MISSED)');
    expect(text).toContain('499 listings (500 live in the table, MISMATCH)');
    expect(text).toContain("AWS's schedule (each whole minute) every 60 s, debounce 30 s");
  });
});
