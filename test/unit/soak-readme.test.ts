/**
 * The README's soak table is the soak's own output: `npm run soak -- … --readme`
 * records each run in docs/soak-runs.json and writes the table from that file. This checks that the
 * table is exactly what the file gives (no figure copied or edited by hand) and that every run shown
 * lost nothing and covered the whole event catalogue.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../functions/domain/events.ts';
import { type RunSummary, readmeTable, SHOWN_RUNS } from '../../scripts/soak/report.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const runs = JSON.parse(readFileSync(resolve(ROOT, 'docs/soak-runs.json'), 'utf8')) as RunSummary[];
const shown = runs.slice(-SHOWN_RUNS).sort((a, b) => a.seed - b.seed);

describe("the README's soak table", () => {
  it('is the table docs/soak-runs.json gives, as --readme wrote it', () => {
    // Act
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const section = /<!-- soak-figures:start -->\n([\s\S]*?)\n<!-- soak-figures:end -->/.exec(readme)?.[1];
    // Assess
    expect(section).toBe(readmeTable(shown));
  });

  it('shows three ten-minute runs of three seeds that lost nothing, with every event type expected and found', () => {
    // Assess: the README says three runs passed
    expect(SHOWN_RUNS).toBe(3);
    expect(shown.length).toBe(SHOWN_RUNS);
    expect(new Set(shown.map((run) => run.seed)).size).toBe(SHOWN_RUNS);
    for (const run of shown) {
      expect(run.minutes).toBe(10);
      expect(run.lost).toBe(0);
      for (const type of EVENT_TYPES) {
        const row = run.kinds.find((k) => k.kind === type);
        expect(row, `${type} in seed ${run.seed}`).toBeDefined();
        expect(row?.expected, `${type} expected in seed ${run.seed}`).toBeGreaterThan(0);
        expect(row?.found).toBe(row?.expected);
      }
    }
  });
});
