/** Small order statistics: the bench reports medians (robust to one noisy neighbour) and tails. */

export interface Summary {
  count: number;
  min: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Median with the usual midpoint for an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: median(sorted),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Rounds for display and JSON alike, so the table and the file show the same figures. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `value / base`, or NaN when either is not a positive measurement (never a silent Infinity). */
export function ratio(value: number, base: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(base) || base <= 0 || value < 0) return Number.NaN;
  return value / base;
}

/** Whether a ratio meets its ceiling; an unmeasured ratio (NaN) does not. */
export function withinRatio(value: number, ceiling: number): boolean {
  return Number.isFinite(value) && value <= ceiling;
}

/** The bench's sections, in the order they run. */
export const SECTIONS = [
  'cold-start',
  'costs',
  'load',
  'leads',
  'events',
  'photos',
  'site',
  'tenants',
  'cost',
] as const;
export type Section = (typeof SECTIONS)[number];

/** `--only cold-start,costs` → those sections; no value → all. Unknown names are refused. */
export function parseSections(only: string | undefined): Set<Section> {
  if (only === undefined || only.trim() === '') return new Set(SECTIONS);
  const names = only
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (unknown.length || names.length === 0) {
    throw new Error(`--only takes ${SECTIONS.join(', ')} (comma-separated); got "${only}"`);
  }
  return new Set(names as Section[]);
}
