/**
 * Cold start against the floor (docs/bench.md, cold-start): every deployed function bundled as CDK
 * bundles it, each sample a fresh `node` run as in Lambda (cold-probe.ts). Targets: module load and
 * first response, medians, ≤ 1.15× the floor's (floor/handler.ts, the least a handler can be).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { routes } from '../../../functions/routes.ts';
import { workers } from '../../../functions/workers.ts';
import { esbuildOptions, HANDLER_FILE, staticClosure } from '../../../lib/bundling.ts';
import { startAwsResponder } from '../aws-responder.ts';
import { runChild } from '../child.ts';
import { defineSection } from '../context.ts';
import { coldStartEnv } from '../env.ts';
import { fixed, mark, median, ratio, round, type Summary, summarize, table, times } from '../stats.ts';
import { coldEvent, seedColdFixture } from './cold-fixture.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
export const COLD_START_TARGET = 1.15;
export type Fn = { name: string; entry: string; kind: string; route?: (typeof routes)[number] };

/** Whether a module's source exports a Lambda `handler` (test/infra/uses.test.ts reads it too). */
export const exportsHandler = (source: string) =>
  /export\s+(?:async\s+function|const|function|let)\s+handler\b|export\s*\{[^}]*\bhandler\b[^}]*\}/.test(
    source,
  );

/** The floor, then every Lambda the stacks deploy, named as they name them. */
export const handlerEntries = (): Fn[] => [
  { name: 'floor', entry: 'scripts/bench/floor/handler.ts', kind: 'floor' },
  ...routes.map((r) => ({ name: r.operationId, entry: `functions/http/${r.entry}`, kind: 'http', route: r })),
  ...workers.map((w) => ({ name: w.name, entry: w.entry, kind: w.trigger.kind })),
];

/**
 * One function bundled as CDK bundles it, code splitting included; its KB are what Node reads at
 * import (the entry and the chunks it imports statically), and gzipped.
 */
async function bundle(fn: Fn, outDir: string) {
  const dir = resolve(outDir, fn.name);
  const { metafile } = await build(
    esbuildOptions({ module: fn.entry, ...(fn.route && { route: fn.route }) }, dir),
  );
  const file = join(dir, HANDLER_FILE);
  const loaded = metafile ? staticClosure(metafile, relative(ROOT, file)) : [];
  const code = Buffer.concat(loaded.map((output) => readFileSync(resolve(ROOT, output))));
  const gzipped = gzipSync(code, { level: 9 });
  return { ...fn, file, kb: round(code.length / 1024), gzipKb: round(gzipped.length / 1024) };
}
type Bundle = Awaited<ReturnType<typeof bundle>>;
/** A sample's spans, ms; its answer: an HTTP status, `ok` or `N failed` for a batch, or `threw: …`. */
type Sample = { importMs: number; firstMs: number; status: string };

/** Whether every answer was a success: a 2xx status, or a batch with no failed item. */
export const successful = (statuses: readonly string[]) =>
  statuses.length > 0 && statuses.every((s) => s === 'ok' || /^2\d\d$/.test(s));

/** The services whose count of calls grew between two snapshots of the responder's counts. */
export const servicesCalled = (before: Record<string, number>, after: Record<string, number>) =>
  Object.keys(after)
    .filter((s) => (after[s] ?? 0) > (before[s] ?? 0))
    .sort();

/** A function's row: its samples' summaries, each median over the floor's, and its answers. */
export function coldRow(b: Pick<Bundle, 'name' | 'kb' | 'gzipKb'>, samples: Sample[], floor: Sample[]) {
  const over = (pick: (s: Sample) => number) =>
    round(ratio(median(samples.map(pick)), median(floor.map(pick))), 2);
  const ratios = { moduleLoad: over((s) => s.importMs), firstResponse: over((s) => s.firstMs) };
  const statuses = [...new Set(samples.map((s) => s.status))].sort();
  const ok = {
    moduleLoad: ratios.moduleLoad <= COLD_START_TARGET,
    firstResponse: ratios.firstResponse <= COLD_START_TARGET,
    answers: successful(statuses),
  };
  const [moduleLoad, firstResponse] = [
    summarize(samples.map((s) => s.importMs)),
    summarize(samples.map((s) => s.firstMs)),
  ];
  return { name: b.name, kb: b.kb, gzipKb: b.gzipKb, moduleLoad, firstResponse, ratios, ok, statuses };
}
export type ColdRow = ReturnType<typeof coldRow> & { sent?: string[] };

export const coldStart = defineSection({
  name: 'cold-start',
  about: 'every function’s module load and first response in fresh processes, against the floor',
  async run(ctx) {
    const runs = ctx.num('runs');
    // First, while nothing else of ours runs on the shared cores; two builds at a time.
    const [dir, entries, bundles] = [resolve(ROOT, '.bench/bundles'), handlerEntries(), [] as Bundle[]];
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let next = 0;
    const builder = async () => {
      for (let i = next++; i < entries.length; i = next++) bundles[i] = await bundle(entries[i] as Fn, dir);
    };
    await Promise.all([builder(), builder()]);
    ctx.log(`  bundled ${bundles.length} functions`);
    const { endpoint, fixture } = await ctx.service();
    const fx = await seedColdFixture(fixture, endpoint);
    const responder = await startAwsResponder();
    const [floor, ...functions] = bundles as [Bundle, ...Bundle[]];
    const seen = () => ({ samples: [] as Sample[], sent: new Set<string>() });
    const of = new Map(bundles.map((b) => [b.name, seen()]));
    const probe = async (b: Bundle, pass: number) => {
      const event = await coldEvent(b, fx, pass);
      const [input, before] = [{ url: pathToFileURL(b.file).href, event, name: b.name }, responder.calls()];
      const env = coldStartEnv(endpoint, responder.origins, b.name);
      const sample = await runChild<Sample>('sections/cold-probe.ts', input, env);
      const called = servicesCalled(before, responder.calls());
      // A call the responder refused fails the sample, whatever the handler answered.
      if (called.includes('refused')) sample.status = `${sample.status} (refused AWS call)`;
      const row = of.get(b.name)!;
      for (const s of called) row.sent.add(s);
      if (pass > 0) row.samples.push(sample);
    };
    // The first pass warms the OS file cache and the fixture's first write paths, and is not kept.
    // The floor is probed before every 8 functions, so that a neighbour's burst of load lands on it
    // as on the functions it is compared with.
    try {
      for (let pass = 0; pass <= runs; pass++) {
        for (const [i, b] of functions.entries()) {
          if (i % 8 === 0) await probe(floor, pass);
          await probe(b, pass);
        }
        ctx.log(pass ? `  pass ${pass}/${runs}` : '  warm-up pass (not kept)');
      }
    } finally {
      await responder.stop();
    }
    const floorSamples = of.get(floor.name)!.samples;
    const rows: ColdRow[] = functions.map((b) => {
      const { samples, sent } = of.get(b.name)!;
      return { ...coldRow(b, samples, floorSamples), sent: [...sent] };
    });
    return { runs, floor: coldRow(floor, floorSamples, floorSamples), rows };
  },
  render({ runs, floor, rows }) {
    const cap = `≤ ${times(COLD_START_TARGET)}`;
    const failing = (pick: (r: ColdRow) => boolean) => rows.filter((r) => !pick(r)).map((r) => r.name);
    const passing = (pick: (r: ColdRow) => boolean) =>
      `${rows.length - failing(pick).length}/${rows.length} pass (FAIL: ${failing(pick).join(', ') || 'none'})`;
    const ms = (s: Summary) => `${fixed(s.median)} (${fixed(s.p90)})`;
    const flags = (r: ColdRow) =>
      `${r.ok.answers ? '' : ' (!)'}${(r.sent ?? []).map((s) => ` +${s}`).join('')}`;
    return [
      `${runs} fresh processes a function, ${floor.moduleLoad.count} for the floor; ms: median (p90). The floor: ${floor.kb} KB (${floor.gzipKb} gzipped), module load ${ms(floor.moduleLoad)} ms, first response ${ms(floor.firstResponse)} ms.`,
      '',
      ...table<ColdRow>(
        [
          ['function', (r) => r.name],
          ['KB', (r) => fixed(r.kb)],
          ['gz KB', (r) => fixed(r.gzipKb)],
          ['load ms', (r) => ms(r.moduleLoad)],
          ['× floor', (r) => times(r.ratios.moduleLoad)],
          [cap, (r) => mark(r.ok.moduleLoad)],
          ['first ms', (r) => ms(r.firstResponse)],
          ['× floor', (r) => times(r.ratios.firstResponse)],
          [cap, (r) => mark(r.ok.firstResponse)],
          ['answer', (r) => `${r.statuses.join(', ')}${flags(r)}`],
        ],
        rows,
      ),
      '',
      `Module load ${cap} the floor: ${passing((r) => r.ok.moduleLoad)}.`,
      `First response ${cap} the floor: ${passing((r) => r.ok.firstResponse)}.`,
      `Not a successful answer (!), so not the usual path: ${failing((r) => r.ok.answers).join(', ') || 'none'}.`,
    ];
  },
});
