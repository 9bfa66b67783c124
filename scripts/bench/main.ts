/**
 * `npm run bench [-- --only SECTIONS] [options]` (docs/bench.md): a registry of sections run in this
 * order, the scale runs only when named. Progress to stderr, the report (markdown) to stdout, the
 * figures as JSON to `--out`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseCommandLine, usageText } from '../command-line.ts';
import { ensureTable, startDynamoLocal } from '../local/dynamo-local.ts';
import { type BenchContext, loadAverages, type Section, type Service } from './context.ts';
import { replaceCostBlock } from './cost-table.ts';
import { startDynamoRecorder } from './dynamo-recorder.ts';
import { BENCH_TABLE, localHandlerEnv } from './env.ts';
import { coldStart } from './sections/cold-start.ts';
import { cost } from './sections/cost.ts';
import { importSection } from './sections/import.ts';
import { leads } from './sections/leads.ts';
import { load } from './sections/load.ts';
import { search, site } from './sections/site.ts';

const SECTIONS: Section<unknown>[] = [coldStart, cost, load, search, leads, site, importSection];
const names = SECTIONS.map((s) => `${s.name}${s.optIn ? ' (when named)' : ''}`).join(', ');
/** Each option: its default, the least value of a whole number (checked before anything runs), its help. */
const OPTIONS: Record<string, [string | undefined, number | undefined, string]> = {
  only: [undefined, undefined, `sections, comma-separated: ${names}; by default all but those when named`],
  out: [undefined, undefined, 'write the figures as JSON to this file (default .bench/last.json)'],
  runs: ['7', 1, 'cold-start: fresh processes per function (medians of them)'],
  samples: ['5', 1, 'measured requests per row of the DynamoDB sections, after a warm-up'],
  connections: ['8', 1, 'load: concurrent autocannon connections'],
  duration: ['8', 1, 'load: seconds per autocannon run'],
  'load-runs': ['3', 1, 'load: runs of the floor and every row (medians reported)'],
  'load-rows': [undefined, undefined, 'load: only these rows, by operationId (comma-separated)'],
  listings: [undefined, 1, 'site: live listings of its Tenant (5000); search: in memory (50000)'],
  leads: ['20000', 1, 'leads: Leads of its Tenant'],
  archived: ['0', 0, 'leads: of those, the oldest this many archived'],
  'import-listings': ['50000', 1, 'import: listings of the feed'],
  'import-concurrency': ['8', 1, 'import: items imported at once (`admin listing import --concurrency`)'],
  'throttle-rate': ['0.05', undefined, "import: the first run's calls throttled past the SDK's retries"],
  'rebuild-schedule': ['minute', undefined, "import: the rebuilder on AWS's schedule (`minute`) or `local`"],
  'cover-timeout': ['300', 1, 'import: seconds to wait after the imports for a snapshot that covers them'],
};
const entries = Object.entries(OPTIONS);
const spec = {
  usage: 'npm run bench -- [--only SECTIONS] [options]',
  summary: 'Measures what the README and docs/bench.md claim, one section at a time (docs/bench.md).',
  options: {
    ...Object.fromEntries(entries.map(([name, [d]]) => [name, { type: 'string' as const, default: d }])),
    readme: { type: 'boolean' as const, default: false },
  },
  help: {
    ...Object.fromEntries(entries.map(([name, [, , help]]) => [name, help])),
    readme: "with the cost section: rewrite README.md's cost table with this run's",
  },
};
const { values: args } = parseCommandLine(spec);
const value = (name: string) => (args as Record<string, unknown>)[name] as string | undefined;
const log = (line: string) => process.stderr.write(`${line}\n`);
/** A bad value: one line naming it, then the usage, exit 2 (as an unknown option is answered). */
function refuse(message: string): never {
  process.stderr.write(`error: ${message}\n\n${usageText(spec)}`);
  process.exit(2);
}

const numbers = new Map<string, number>();
for (const [name, [, least]] of entries) {
  const n = Number(value(name) ?? least);
  const whole = least === undefined || (Number.isInteger(n) && n >= least);
  if (!whole) refuse(`--${name} must be a whole number of at least ${least}`);
  if (value(name) !== undefined) numbers.set(name, n);
}
const rate = numbers.get('throttle-rate') ?? Number.NaN;
if (!(rate >= 0 && rate <= 1)) refuse('--throttle-rate must be from 0 to 1');
if ((numbers.get('archived') ?? 0) > (numbers.get('leads') ?? 0)) refuse('--archived cannot exceed --leads');
if (!['minute', 'local'].includes(value('rebuild-schedule') ?? ''))
  refuse('--rebuild-schedule is minute or local');
const named = value('only')?.split(/\s*,\s*/);
const unknown = named?.filter((n) => !SECTIONS.some((s) => s.name === n));
if (unknown?.length) refuse(`--only: no section named "${unknown.join('", "')}"`);
const planned = SECTIONS.filter((s) => (named ? named.includes(s.name) : !s.optIn));
if (args.readme && !planned.includes(cost as never)) refuse('--readme needs the cost section');

const stops: (() => Promise<void>)[] = [];
const stopAll = async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch((e) => log(`stop: ${String(e)}`));
};
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));

/** The service, started by the first section that asks; the later ones share it. */
async function startService(): Promise<Service> {
  log('Starting DynamoDB Local (in memory) and the fixture Tenant…');
  const dynamoLocal = await startDynamoLocal();
  stops.push(() => dynamoLocal.stop());
  await ensureTable(dynamoLocal.endpoint, BENCH_TABLE);
  // The functions/ modules read their configuration on first use: the environment goes first.
  Object.assign(process.env, localHandlerEnv(dynamoLocal.endpoint));
  (await import('../local/adapters/index.ts')).bindLocalAdapters();
  const { dynamo } = await import('../../functions/data/client.ts');
  const { createFixture, useRecorder } = await import('./dynamo-costs.ts');
  useRecorder(startDynamoRecorder(dynamo()));
  return { endpoint: dynamoLocal.endpoint, fixture: await createFixture() };
}

let service: Promise<Service> | undefined;
const ctx: BenchContext = {
  num: (name, fallback) => numbers.get(name) ?? fallback ?? Number.NaN,
  text: value,
  log,
  service: () => (service ??= startService()),
  onStop: (stop) => void stops.push(stop),
};

const started = performance.now();
const report: string[] = [];
const figures: Record<string, unknown> = {};
try {
  for (const [i, section] of planned.entries()) {
    log(`[${i + 1}/${planned.length}] ${section.name}: ${section.about}`);
    const [start, t0] = [loadAverages(), performance.now()];
    const result = await section.run(ctx);
    const [seconds, end] = [Math.round((performance.now() - t0) / 1000), loadAverages()];
    figures[section.name] = { seconds, loadAverage: { start, end }, ...(result as object) };
    const loads = `${seconds} s; load average ${start.join(' / ')} at start, ${end.join(' / ')} at end.`;
    report.push(`## ${section.name}`, '', loads, '', ...section.render(result), '');
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  const at = new Date().toISOString();
  const head = `# Bench ${at}: Node ${process.version}, ${availableParallelism()} CPUs, ${seconds} s`;
  process.stdout.write(`${[head, '', ...report].join('\n')}\n`);
  const table = (figures.cost as { table?: string } | undefined)?.table;
  if (args.readme && table) {
    const readme = resolve(import.meta.dirname, '../../README.md');
    writeFileSync(readme, replaceCostBlock(readFileSync(readme, 'utf8'), table));
    log(`Rewrote the cost table in ${readme}`);
  }
  const out = resolve(value('out') ?? '.bench/last.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ at, node: process.version, seconds, figures }, null, 2)}\n`);
} catch (error) {
  log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
