/**
 * `npm run bench [-- --only cold-start,costs --runs 11 --samples 5 --out FILE.json]`: every deployed
 * function's cold start against a floor handler, what a request costs in DynamoDB, how the local
 * server holds up under load next to a raw DynamoDB floor, and what Leads requests cost in a Tenant
 * with 20,000 Leads (`--leads N`; 0 leaves that section out; `--archived M` archives the oldest M).
 * `--only import` (only when named): a bulk listing import under throttling and the snapshot's lag
 * (import.ts).
 *
 * Order matters: bundles are built first, while nothing else of ours runs on the shared cores;
 * then DynamoDB Local (a JVM) starts, idle while the cold starts are measured between their single
 * requests. The 20,000-Lead Tenant is seeded last, after the load phase, so that phase sees the same
 * small table as before. The functions/ modules read their configuration on import, so the
 * environment is set before the first dynamic import.
 * Progress goes to stderr, the table to stdout.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { parseCommandLine } from '../command-line.ts';
import { ensureTable, startDynamoLocal } from '../local/dynamo-local.ts';
import { bundleHandlers } from './bundles.ts';
import { COST_NOTES } from './cost.ts';
import { replaceCostBlock } from './cost-table.ts';
import { startDynamoRecorder } from './dynamo-recorder.ts';
import { BENCH_TABLE, type CursorKeySource, localHandlerEnv } from './env.ts';
import { type ImportSection, renderImport } from './import-feed.ts';
import {
  type BenchReport,
  COLD_START_NOTES,
  coldStartSection,
  LEADS_NOTES,
  NOTES,
  renderReport,
  TARGETS,
} from './report.ts';
import { SITE_NOTES } from './site-search.ts';
import { parseSections, round, SECTIONS, type Section } from './stats.ts';

const { values: args } = parseCommandLine({
  usage: 'npm run bench -- [--only SECTIONS] [options]',
  summary:
    'Measures what the README and docs/bench.md claim: cold starts, DynamoDB units per operation, the hot path under load, the Leads and site scale runs, photo renditions, the cost table. Each section prints its figures with the load average; see docs/bench.md.',
  options: {
    out: { type: 'string' },
    only: { type: 'string' },
    runs: { type: 'string', default: '11' },
    'cursor-key': { type: 'string', default: 'env' },
    samples: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    duration: { type: 'string', default: '8' },
    'load-runs': { type: 'string', default: '3' },
    'cpu-requests': { type: 'string', default: '200' },
    'load-rows': { type: 'string' },
    'cpu-prof': { type: 'string' },
    leads: { type: 'string', default: '20000' },
    archived: { type: 'string', default: '0' },
    listings: { type: 'string', default: '5000' },
    'price-changes': { type: 'string', default: '1000' },
    tenants: { type: 'string', default: '30' },
    largest: { type: 'string', default: '2000' },
    containers: { type: 'string', default: '4' },
    'container-requests': { type: 'string', default: '100' },
    'container-mb': { type: 'string', default: '1024,512' },
    readme: { type: 'boolean', default: false },
    'import-listings': { type: 'string', default: '50000' },
    'import-concurrency': { type: 'string' },
    'throttle-rate': { type: 'string', default: '0.05' },
    'rebuild-schedule': { type: 'string', default: 'minute' },
    'cover-timeout': { type: 'string', default: '300' },
  },
  help: {
    out: 'write the report (markdown) to this file as well as stdout',
    only: 'sections to run, comma-separated (cold-start, costs, load, leads, events, photos, site, tenants, cost; and import, only when named); all but import by default',
    runs: 'fresh processes per function for the cold-start medians (at least 10 for a median)',
    'cursor-key': 'cold start: the cursor key from CURSOR_SECRET (`env`, as deployed) or `secrets-manager`',
    samples: 'measured requests per cost row, after one warm-up',
    connections: 'load section: concurrent connections of autocannon',
    duration: 'load section: seconds per autocannon run',
    'load-runs': 'load section: runs of the floor and every row (medians reported)',
    'cpu-requests': 'load section: sequential requests per row for the CPU-per-request figure',
    'load-rows': 'load section: only these rows, by operationId (comma-separated), e.g. `getProperty`',
    'cpu-prof': 'load section: write a V8 CPU profile of the API server process into this folder',
    leads: "Leads seeded into the leads section's Tenant; 0 skips the section.",
    archived: 'of those, the oldest this many archived before the live ones were touched',
    listings: "Live listings of the site section's Tenant.",
    'price-changes': 'site section: price changes of the largest listing whose item sizes it reports',
    tenants: 'tenants section: how many Tenants',
    largest: "tenants section: the largest Tenant's live listings",
    containers: 'tenants section: fresh processes standing for containers',
    'container-requests': 'tenants section: site requests each container serves',
    'container-mb': "Tenants section: the containers' memory settings in MB, comma-separated, taken in turn.",
    readme: "Cost section: also rewrite README.md's cost-table block with the figures of this run.",
    'import-listings': 'import section (`--only import`, not in the default run): listings of the feed',
    'import-concurrency':
      "Import section: items the import runs at once (`admin listing import --concurrency`); importListings' default if not given.",
    'throttle-rate':
      "Import section: the share of DynamoDB calls of the first run throttled past the SDK's retries.",
    'rebuild-schedule':
      "Import section: the rebuilder on AWS's schedule (`minute`, each whole minute) or the local stack's (`local`).",
    'cover-timeout': 'import section: how long to wait after the imports for a snapshot that covers them',
  },
});

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 1) return n;
  process.stderr.write(`--${name} must be a positive integer, got "${value}"\n`);
  process.exit(2);
}

function count(name: string, value: string | undefined): number {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0) return n;
  process.stderr.write(`--${name} must be a whole number, got "${value}"\n`);
  process.exit(2);
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROOT = resolve(import.meta.dirname, '../..');
/**
 * The import section runs only when named (`--only import`): at its 50,000 listings it takes tens
 * of minutes, too long for the default run. The other names go to parseSections as before.
 */
const onlyNames = args.only?.split(',').map((n) => n.trim());
const runImport = onlyNames?.includes('import') ?? false;
const otherSections = onlyNames?.filter((n) => n && n !== 'import');
const sections = (() => {
  try {
    if (runImport && !otherSections?.length) return new Set<Section>();
    return parseSections(otherSections?.join(','));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
})();
const runs = positive('runs', args.runs);
const cursorKey = args['cursor-key'] as CursorKeySource;
if (!['env', 'secrets-manager'].includes(cursorKey)) {
  process.stderr.write(`--cursor-key must be env or secrets-manager, got "${cursorKey}"\n`);
  process.exit(2);
}
const samples = positive('samples', args.samples);
const leadCount = count('leads', args.leads);
const archivedLeads = count('archived', args.archived);
if (archivedLeads > leadCount) {
  process.stderr.write(`--archived (${archivedLeads}) cannot exceed --leads (${leadCount})\n`);
  process.exit(2);
}
if (leadCount === 0) sections.delete('leads');
const importOptions = {
  listings: positive('import-listings', args['import-listings']),
  throttleRate: Number(args['throttle-rate']),
  schedule: args['rebuild-schedule'] as 'minute' | 'local',
  coverTimeoutSeconds: positive('cover-timeout', args['cover-timeout']),
  concurrency:
    args['import-concurrency'] === undefined
      ? undefined
      : positive('import-concurrency', args['import-concurrency']),
};
if (!(importOptions.throttleRate >= 0 && importOptions.throttleRate <= 1)) {
  process.stderr.write(`--throttle-rate must be a rate from 0 to 1, got "${args['throttle-rate']}"\n`);
  process.exit(2);
}
if (!['minute', 'local'].includes(importOptions.schedule)) {
  process.stderr.write(`--rebuild-schedule must be minute or local, got "${importOptions.schedule}"\n`);
  process.exit(2);
}
const load = {
  connections: positive('connections', args.connections),
  durationSeconds: positive('duration', args.duration),
};
const loadRuns = positive('load-runs', args['load-runs']);
const cpuRequests = positive('cpu-requests', args['cpu-requests']);
/** Leads of the bench Tenant the filtered list row pages through. */
const HOT_PATH_LEADS = 30;
if (runs < 10) log(`warning: --runs ${runs} is below the 10 fresh processes a median should use`);
const planned = SECTIONS.filter((s) => sections.has(s));
const step = (section: (typeof SECTIONS)[number]) => `[${planned.indexOf(section) + 1}/${planned.length}]`;

/** Everything started here, stopped in reverse order on success, error or Ctrl-C. */
const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  for (const stop of cleanups.splice(0).reverse())
    await stop().catch((e: unknown) => log(`cleanup: ${String(e)}`));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** The 1-, 5- and 15-minute load averages, two decimals. */
const loadAverages = () => loadavg().map((n) => round(n, 2));

async function main(): Promise<BenchReport & { import: ImportSection | null }> {
  const startedAt = new Date();
  const loadAtStart = loadAverages();
  const t0 = performance.now();

  let bundles: Awaited<ReturnType<typeof bundleHandlers>> = [];
  if (sections.has('cold-start')) {
    log(`${step('cold-start')} Bundling the floor and every function with lib/bundling.ts…`);
    bundles = await bundleHandlers(resolve(ROOT, '.bench/bundles'), log);
  }

  log('Starting DynamoDB Local (in memory)…');
  const dynamoLocal = await startDynamoLocal();
  cleanups.push(() => dynamoLocal.stop());
  await ensureTable(dynamoLocal.endpoint, BENCH_TABLE);
  // The in-process handlers (fixtures, costs) reach DynamoDB Local through the recorder.
  const recorder = await startDynamoRecorder(dynamoLocal.endpoint);
  cleanups.push(() => recorder.stop());
  Object.assign(process.env, localHandlerEnv(recorder.endpoint));
  // The handlers run in-process here, with the local stack's adapters (outbox, table queue).
  (await import('../local/adapters/index.ts')).bindLocalAdapters();
  // Only now: dynamo-costs.ts pulls in functions/ modules, which read process.env on import.
  const { createFixture, measureCosts, useRecorder } = await import('./dynamo-costs.ts');
  useRecorder(recorder);
  const fixture = await createFixture();

  let coldStart: BenchReport['coldStart'] = null;
  if (sections.has('cold-start')) {
    const { measureColdStart, seedColdStart } = await import('./cold-start.ts');
    log(`${step('cold-start')} Seeding the cold-start Tenant (${runs + 1} samples a function)…`);
    const coldFixture = await seedColdStart(fixture, runs + 1, dynamoLocal.endpoint);
    log(
      `${step('cold-start')} Cold start: ${runs} passes of fresh node processes over ${bundles.length} bundles…`,
    );
    const sectionLoad = loadAverages();
    const figures = await measureColdStart(
      bundles,
      coldFixture,
      runs,
      dynamoLocal.endpoint,
      resolve(ROOT, '.bench/events'),
      log,
      cursorKey,
    );
    coldStart = {
      ...coldStartSection(bundles, figures, runs),
      loadAverage: { start: sectionLoad, end: loadAverages() },
      cursorKey,
    };
  }

  let costs: BenchReport['costs'] = null;
  if (sections.has('costs')) {
    log(`${step('costs')} DynamoDB cost per operation (${samples} requests each after a warm-up)…`);
    costs = await measureCosts(fixture, samples, log);
  }

  let loadFigures: BenchReport['load'] = null;
  if (sections.has('load')) {
    const { hotPathCases, measureHotPath, seedHotPathLeads, seedHotPathSite } = await import('./hot-path.ts');
    log(
      `${step('load')} Hot paths: seeding ${HOT_PATH_LEADS} Leads for the filtered list, listings and a publishable key for the site search…`,
    );
    await seedHotPathLeads(fixture, HOT_PATH_LEADS);
    const siteKey = await seedHotPathSite(fixture);
    log(
      `${step('load')} Hot paths against the node:http + GetItem floor: ${load.connections} connections × ${load.durationSeconds} s, ${loadRuns} runs…`,
    );
    loadFigures = await measureHotPath({
      dynamoEndpoint: dynamoLocal.endpoint,
      tableName: BENCH_TABLE,
      fixture,
      cases: hotPathCases(fixture, siteKey).filter(
        (c) => !args['load-rows'] || args['load-rows'].split(',').includes(c.operationId),
      ),
      load,
      runs: loadRuns,
      cpuRequests,
      serverNodeOptions: args['cpu-prof']
        ? ['--cpu-prof', `--cpu-prof-dir=${resolve(args['cpu-prof'])}`]
        : [],
      loadAverages,
      log,
    });
    if (args['cpu-prof'])
      log(`  CPU profile of the API server process written to ${resolve(args['cpu-prof'])}`);
  }

  let leads: BenchReport['leads'] = null;
  if (sections.has('leads')) {
    log(`${step('leads')} Leads: seeding one Tenant with ${leadCount} Leads (BatchWriteItem)…`);
    const { measureLeads, seedLeadsTenant } = await import('./leads.ts');
    // Each dedupe row uses a Lead once per request, in-process and over HTTP.
    const leadsFixture = await seedLeadsTenant(
      leadCount,
      2 * (samples + 1),
      dynamoLocal.endpoint,
      log,
      archivedLeads,
    );
    log(`${step('leads')} Leads: cost per request (${samples} requests each after a warm-up)…`);
    leads = await measureLeads(leadsFixture, samples, dynamoLocal.endpoint, log);
  }

  let events: BenchReport['events'] = null;
  if (sections.has('events')) {
    log(`${step('events')} Events: the consumer's throughput and webhook arrival…`);
    const { measureEventsSection } = await import('./event-delivery.ts');
    events = await measureEventsSection({
      dynamoEndpoint: dynamoLocal.endpoint,
      tableName: BENCH_TABLE,
      tenantId: fixture.tenantId,
      samples: 30,
      log,
    });
  }

  let photos: BenchReport['photos'] = null;
  if (sections.has('photos')) {
    log(`${step('photos')} Photos: import by URL of a 5 MB JPEG, and the worker's peak memory…`);
    const { measurePhotoImport } = await import('./photo-import.ts');
    photos = await measurePhotoImport({ tenantId: fixture.tenantId, samples: 11, log });
    const { measureRenditions } = await import('./renditions.ts');
    photos.renditions = await measureRenditions({ runs: 4, log });
  }

  let site: BenchReport['site'] = null;
  if (sections.has('site')) {
    const { measureSiteSearch, seedSiteTenant } = await import('./site-search.ts');
    const liveListings = positive('listings', args.listings);
    log(`${step('site')} Site: seeding one Tenant with ${liveListings} live listings (BatchWriteItem)…`);
    const siteFixture = await seedSiteTenant(liveListings, dynamoLocal.endpoint, log);
    log(
      `${step('site')} Site: GET /v1/site/properties, warm and cold (${Math.max(samples, 30)} requests a row)…`,
    );
    site = await measureSiteSearch(siteFixture, recorder, Math.max(samples, 30), log);
    const { measureLargestListing } = await import('./largest-listing.ts');
    site.largest = await measureLargestListing(
      dynamoLocal.endpoint,
      count('price-changes', args['price-changes']),
      log,
    );
  }

  let tenants: BenchReport['tenants'] = null;
  if (sections.has('tenants')) {
    const { measureManyTenants } = await import('./many-tenants.ts');
    log(`${step('tenants')} Many Tenants: seeding, snapshots, then site requests in fresh containers…`);
    tenants = await measureManyTenants({
      tenants: positive('tenants', args.tenants),
      largest: positive('largest', args.largest),
      containers: positive('containers', args.containers),
      requestsPerContainer: positive('container-requests', args['container-requests']),
      memoryMb: (args['container-mb'] ?? '').split(',').map((mb) => positive('container-mb', mb)),
      dynamoEndpoint: dynamoLocal.endpoint,
      log,
    });
  }

  let cost: BenchReport['cost'] = null;
  if (sections.has('cost')) {
    log(
      `${step('cost')} Cost: each operation of the reference month's mix (${samples} requests each after a warm-up)…`,
    );
    const { measureCostSection } = await import('./cost.ts');
    const measuredOn = `${startedAt.toISOString().slice(0, 10)}, load ${loadAverages().join(' / ')}`;
    cost = await measureCostSection(fixture, samples, log, measuredOn);
  }

  let importSection: ImportSection | null = null;
  if (runImport) {
    const { measureImport } = await import('./import.ts');
    log(
      `[import] Listing import: ${importOptions.listings} listings throttled at ${importOptions.throttleRate} (${importOptions.concurrency ?? 'default'} at once), then the resume; the snapshot's lag…`,
    );
    importSection = await measureImport({ dynamoEndpoint: dynamoLocal.endpoint, ...importOptions });
  }

  return {
    import: importSection,
    startedAt: startedAt.toISOString(),
    elapsedSeconds: Math.round((performance.now() - t0) / 1000),
    node: process.version,
    cpus: availableParallelism(),
    loadAverage: { start: loadAtStart, end: loadAverages() },
    sections: planned,
    targets: TARGETS,
    coldStart,
    costs,
    load: loadFigures,
    leads,
    events,
    photos,
    site,
    tenants,
    cost,
    notes: [
      ...(coldStart ? COLD_START_NOTES : []),
      ...(costs || loadFigures || leads ? NOTES : []),
      ...(leads ? LEADS_NOTES : []),
      ...(site ? SITE_NOTES : []),
      ...(cost ? COST_NOTES : []),
    ],
  };
}

try {
  const report = await main();
  await cleanUp();
  process.stdout.write(`${renderReport(report)}\n`);
  if (report.import) process.stdout.write(`${renderImport(report.import).join('\n')}\n`);
  if (args.readme) {
    if (!report.cost) throw new Error('--readme needs the cost section (--only cost)');
    const readme = resolve(ROOT, 'README.md');
    writeFileSync(readme, replaceCostBlock(readFileSync(readme, 'utf8'), report.cost.table));
    log(`Rewrote the cost table in ${readme}`);
  }
  if (args.out) {
    const file = resolve(args.out);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`Wrote ${file}`);
  }
} catch (error) {
  log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await cleanUp();
  process.exitCode = 1;
}
