/** Order statistics and the table printer: the bench reports medians (robust to one noisy neighbour) and tails. */

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Median with the usual midpoint for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}

export interface Summary {
  count: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const s = [...values].sort((a, b) => a - b);
  return {
    count: s.length,
    median: median(s),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.at(-1) ?? NaN,
  };
}

/** Rounds for display and JSON alike, so the table and the file show the same figures. */
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** `value / base`, or NaN when either is not a positive measurement (never a silent Infinity). */
export const ratio = (value: number, base: number) =>
  Number.isFinite(value) && Number.isFinite(base) && base > 0 && value >= 0 ? value / base : Number.NaN;

/** `1.5` → `1.5`, NaN → `-`. */
export const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
/** `1.07×`, or `-` for a ratio that could not be measured. */
export const times = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '-');
/** A target's verdict; an unmeasured figure (NaN) fails. */
export const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');

/** A column of a markdown table: its header and a row's cell. */
export type Column<R> = readonly [header: string, cell: (row: R) => string | number];

/** A markdown table, a line a row: the first column left-aligned, the others right-aligned. */
export function table<R>(columns: readonly Column<R>[], rows: readonly R[]): string[] {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  const header = columns.map(([name]) => name);
  const body = rows.map((row) => line(columns.map(([, cell]) => cell(row))));
  return [line(header), line(header.map((_, i) => (i ? '---:' : '---'))), ...body];
}
