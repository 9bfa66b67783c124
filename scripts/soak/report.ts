/**
 * The soak's figures, written by the soak: every run keeps its report as JSON
 * in its DATA_DIR (`soak-report.json`), and `--readme` adds a passing run's figures to
 * docs/soak-runs.json and writes the README's table from that file. No figure is copied by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KindCount, RuleResult } from './audit.ts';

export const REPORT_FILE = 'soak-report.json';
const ROOT = resolve(import.meta.dirname, '../..');
const RUNS_FILE = resolve(ROOT, 'docs/soak-runs.json');
const README = resolve(ROOT, 'README.md');
const START = '<!-- soak-figures:start -->';
const END = '<!-- soak-figures:end -->';
/** The README shows the latest runs of this many seeds. */
export const SHOWN_RUNS = 3;

export interface SoakReport {
  seed: number;
  minutes: number;
  plant: string | null;
  faults: string;
  kills: Record<string, number>;
  settle: { waitedSeconds: number; settled: boolean; left: string };
  seconds: number;
  passed: boolean;
  requests: number;
  results: RuleResult[];
}

/** Writes the run's report into its DATA_DIR; returns the file. */
export function writeReport(dataDir: string, report: SoakReport): string {
  const file = join(dataDir, REPORT_FILE);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** One run as the README shows it. */
export interface RunSummary {
  seed: number;
  minutes: number;
  commit: string;
  date: string;
  loadAverage: string;
  seconds: number;
  requests: number;
  kills: Record<string, number>;
  /** Per kind (event types, side effects, imports): expected and found by the audit. */
  kinds: KindCount[];
  /** At-least-once repeats, by kind (same webhook-id again; a schedule fired twice). */
  duplicates: Record<string, number>;
  /** Expected but not found, over every kind. */
  lost: number;
}

export function summaryOf(report: SoakReport, now = new Date()): RunSummary {
  const kinds = report.results.flatMap((r) => r.table ?? []);
  const duplicates: Record<string, number> = {};
  for (const r of report.results) Object.assign(duplicates, r.duplicates ?? {});
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    // Not a git checkout: the figures stand without it.
  }
  return {
    seed: report.seed,
    minutes: report.minutes,
    commit,
    date: now.toISOString().slice(0, 10),
    loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' / '),
    seconds: report.seconds,
    requests: report.requests,
    kills: report.kills,
    kinds,
    duplicates,
    lost: kinds.reduce((n, k) => n + k.missing, 0),
  };
}

const number = (n: number) => n.toLocaleString('en-US');

/** The README's table: one column per run, one row per kind (expected / found), then duplicates and losses. */
export function readmeTable(runs: readonly RunSummary[]): string {
  const kinds = [...new Set(runs.flatMap((r) => r.kinds.map((k) => k.kind)))];
  const duplicateKinds = [...new Set(runs.flatMap((r) => Object.keys(r.duplicates)))].sort();
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    row(['', ...runs.map((r) => `seed ${r.seed}`)]),
    row(['---', ...runs.map(() => '---:')]),
    row(['minutes of traffic, requests', ...runs.map((r) => `${r.minutes}, ${number(r.requests)}`)]),
    row([
      '`kill -9` (stream, webhooks, api)',
      ...runs.map((r) => `${r.kills.stream ?? 0}, ${r.kills.webhooks ?? 0}, ${r.kills.api ?? 0}`),
    ]),
    ...kinds.map((kind) =>
      row([
        `${kind}: expected / found`,
        ...runs.map((r) => {
          const k = r.kinds.find((c) => c.kind === kind);
          return k ? `${number(k.expected)} / ${number(k.found)}` : '–';
        }),
      ]),
    ),
    ...duplicateKinds.map((kind) =>
      row([`duplicates: ${kind}`, ...runs.map((r) => number(r.duplicates[kind] ?? 0))]),
    ),
    row(['**lost**', ...runs.map((r) => `**${r.lost}**`)]),
    row(['time, load average at the end', ...runs.map((r) => `${r.seconds} s, ${r.loadAverage}`)]),
    row(['commit, date', ...runs.map((r) => `${r.commit}, ${r.date}`)]),
  ];
  return lines.join('\n');
}

/** Adds the run to docs/soak-runs.json (replacing its seed's last one) and rewrites the README table. */
export function writeReadmeTable(reportFile: string): string {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as SoakReport;
  const runs: RunSummary[] = existsSync(RUNS_FILE) ? JSON.parse(readFileSync(RUNS_FILE, 'utf8')) : [];
  const kept = [...runs.filter((r) => r.seed !== report.seed), summaryOf(report)];
  writeFileSync(RUNS_FILE, `${JSON.stringify(kept, null, 2)}\n`);
  const shown = kept.slice(-SHOWN_RUNS).sort((a, b) => a.seed - b.seed);
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md has no ${START} … ${END} section`);
  writeFileSync(
    README,
    `${readme.slice(0, from + START.length)}\n${readmeTable(shown)}\n${readme.slice(to)}`,
  );
  return `soak table written (seeds ${shown.map((r) => r.seed).join(', ')}; docs/soak-runs.json)`;
}
