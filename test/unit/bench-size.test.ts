/**
 * The bench stays a tool, not a second product: scripts/bench, its tests apart, is at most 3,000
 * lines (docs/bench.md says so). What no claim needs retires to docs/bench.md with its last figures
 * and the commit that measured them, rather than growing the bench past this.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BENCH = 'scripts/bench';
const MAX_LINES = 3_000;

/** Lines of every TypeScript file under `dir`, as `wc -l` counts them (newlines). */
function linesUnder(dir: string): { files: number; lines: number } {
  let files = 0;
  let lines = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    files++;
    lines += readFileSync(join(entry.parentPath, entry.name), 'utf8').split('\n').length - 1;
  }
  return { files, lines };
}

describe('the bench', () => {
  it(`is at most ${MAX_LINES} lines of TypeScript`, () => {
    const { files, lines } = linesUnder(BENCH);
    expect(files).toBeGreaterThan(10); // the walk found the bench
    expect(lines).toBeLessThanOrEqual(MAX_LINES);
  });
});
