/** What a section of the bench is, and what it is given. */
import { loadavg } from 'node:os';
import type { BenchFixture } from './dynamo-costs.ts';

/** A section: `run` gives its figures (the JSON), `render` prints them (markdown lines). */
export interface Section<F = unknown> {
  name: string;
  /** What it measures, for `--help` and the progress log. */
  about: string;
  /** A scale run: only when named in `--only`. */
  optIn?: boolean;
  run(ctx: BenchContext): Promise<F>;
  render(figures: F): string[];
}

/** The service in the bench's process on DynamoDB Local (`endpoint`), and its fixture Tenant. */
export type Service = { endpoint: string; fixture: BenchFixture };

export interface BenchContext {
  /** A number option (checked before any section runs), or `fallback` when not given. */
  num(name: string, fallback?: number): number;
  text(name: string): string | undefined;
  log(line: string): void;
  /** Started by the first section that asks; the later ones share it. */
  service(): Promise<Service>;
  /** Stops this with the bench (success, failure or Ctrl-C), last started first. */
  onStop(stop: () => Promise<void>): void;
}

/** The 1-, 5- and 15-minute load averages: the cores are shared, this says how much. */
export const loadAverages = () => loadavg().map((n) => Math.round(n * 100) / 100);

/** A section, its figures' type taken from its `run`. */
export const defineSection = <F>(section: Section<F>): Section<F> => section;
