import type { BundleResult, PackageShare } from './bundles.ts';
import type { ColdFigures } from './cold-start.ts';
import type { CostSection } from './cost.ts';
import type { CostResult } from './dynamo-costs.ts';
import type { EventsSection } from './event-delivery.ts';
import { HOT_PATH_TARGETS, type HotPathSection } from './hot-path.ts';
import type { LeadsRow, LeadsSection } from './leads.ts';
import type { LoadFigures } from './load.ts';
import { type ManyTenantsSection, renderManyTenants } from './many-tenants-mix.ts';
import type { PhotosSection } from './photo-import.ts';
import { renderSite, type SiteSection } from './site-search.ts';
import { ratio, round, type Summary, withinRatio } from './stats.ts';

/** The targets the figures are judged against; the same values go into the JSON. */
export const TARGETS = {
  /** Issue 8: every function's module load median at most this many times the floor's. */
  moduleLoadRatioToFloor: 1.15,
  /** Issue 8: every function's import plus first response median at most this many times the floor's. */
  firstResponseRatioToFloor: 1.15,
  authenticatedGetSequentialRoundTrips: 2,
  getByIdReadUnits: 0.5,
  getByIdWriteUnits: 1,
  /** Issue 4: a filtered Leads page costs at most this many times the unfiltered page's RCU. */
  filteredLeadsPageRcuRatio: 5,
  /** Issue 10: API write → webhook receiver, p50 on the local stack. */
  webhookArrivalP50Ms: 1000,
} as const;

/** Median and p90 of one timing over `runs` fresh processes, ms. */
export interface Timing {
  median: number;
  p90: number;
  runs: number;
}

/** The floor's own figures: the base of every ratio. */
export interface FloorRow {
  entry: string;
  kb: number;
  gzipKb: number;
  moduleLoadMs: Timing;
  firstResponseMs: Timing;
  statuses: string[];
  composition: PackageShare[];
}

export interface ColdStartRow {
  name: string;
  entry: string;
  kind: BundleResult['kind'];
  kb: number;
  gzipKb: number;
  moduleLoadMs: Timing;
  firstResponseMs: Timing;
  /** Each figure over the floor's (medians for the timings). */
  ratios: { kb: number; gzipKb: number; moduleLoad: number; firstResponse: number };
  /**
   * The CPU-time medians over the floor's: the same comparison with the neighbours' load mostly
   * taken out (the targets are judged on the wall-clock ratios above).
   */
  cpuRatios: { moduleLoad: number; firstResponse: number };
  moduleLoadOk: boolean;
  firstResponseOk: boolean;
  /** Distinct answers of the samples; `statusOk` when all were 2xx (HTTP) or `ok` (batch). */
  statuses: string[];
  statusOk: boolean;
  /** The AWS services besides DynamoDB it called (SQS, SESv2, Bedrock Runtime, Secrets Manager). */
  sent: string[];
  /** The event was a guess (a function the bench has no case for). */
  genericEvent: boolean;
  composition: PackageShare[];
}

export interface ColdStartSection {
  runs: number;
  /** Load averages (1, 5, 15 min) when the section's passes started and ended. */
  loadAverage?: { start: number[]; end: number[] };
  /** Where the cold processes took the cursor key from (CURSOR_SECRET, or Secrets Manager). */
  cursorKey?: 'env' | 'secrets-manager';
  /** Floor samples in all: more than `runs`, as it is probed between blocks of functions in each pass. */
  floorSamples: number;
  floor: FloorRow;
  rows: ColdStartRow[];
}

/** Section 3: the hot paths against the bare HTTP + GetItem floor (scripts/bench/hot-path.ts). */
export type LoadSection = HotPathSection;

export interface BenchReport {
  startedAt: string;
  elapsedSeconds: number;
  node: string;
  cpus: number;
  /** 1-, 5- and 15-minute load averages at start and end: the cores are shared, this says how much. */
  loadAverage: { start: number[]; end: number[] };
  /** The sections run (`--only`). */
  sections: string[];
  targets: typeof TARGETS;
  /** Sections left out by --only are null. */
  coldStart: ColdStartSection | null;
  costs: CostResult[] | null;
  load: LoadSection | null;
  /** The leads section (issue 4); null when run with --leads 0. */
  leads: LeadsSection | null;
  /** Events per second through the consumer and webhook arrival latency (issue 10). */
  events: EventsSection | null;
  /** A 5 MB JPEG imported by URL: request → ready, and the worker's peak memory (issue 11). */
  photos?: PhotosSection | null;
  /** Site search on 5,000 live listings: round trips, units, server time, catalogue load (issue 12). */
  site?: SiteSection | null;
  /** Many Tenants of skewed sizes served by several fresh containers (issue 25, point 4). */
  tenants?: ManyTenantsSection | null;
  /** Monthly cost of the reference agency and portal from measured per-request figures (issue 25). */
  cost?: CostSection | null;
  notes: string[];
}

const timing = (s: Summary | undefined): Timing => ({
  median: round(s?.median ?? Number.NaN),
  p90: round(s?.p90 ?? Number.NaN),
  runs: s?.count ?? 0,
});

/** Whether every answer was a success: a 2xx status, or a batch with no failed item. */
export function successful(statuses: readonly string[]): boolean {
  return statuses.length > 0 && statuses.every((s) => s === 'ok' || /^2\d\d$/.test(s));
}

/** The cold-start section from the bundles (floor included) and their figures. */
export function coldStartSection(
  bundles: readonly BundleResult[],
  figures: Map<string, ColdFigures>,
  runs: number,
): ColdStartSection {
  const floorBundle = bundles.find((b) => b.kind === 'floor');
  const floorFigures = floorBundle && figures.get(floorBundle.name);
  if (!floorBundle || !floorFigures) throw new Error('cold start: no floor figures');
  const floor: FloorRow = {
    entry: floorBundle.entry,
    kb: floorBundle.kb,
    gzipKb: floorBundle.gzipKb,
    moduleLoadMs: timing(floorFigures.moduleLoad),
    firstResponseMs: timing(floorFigures.firstResponse),
    statuses: floorFigures.statuses,
    composition: floorBundle.composition.slice(0, 8),
  };
  const rows = bundles
    .filter((b) => b.kind !== 'floor')
    .map((b): ColdStartRow => {
      const f = figures.get(b.name);
      const moduleLoadMs = timing(f?.moduleLoad);
      const firstResponseMs = timing(f?.firstResponse);
      // Ratios from the unrounded medians, rounded once for display and JSON.
      const moduleLoad = ratio(f?.moduleLoad.median ?? Number.NaN, floorFigures.moduleLoad.median);
      const firstResponse = ratio(f?.firstResponse.median ?? Number.NaN, floorFigures.firstResponse.median);
      return {
        name: b.name,
        entry: b.entry,
        kind: b.kind,
        kb: b.kb,
        gzipKb: b.gzipKb,
        moduleLoadMs,
        firstResponseMs,
        ratios: {
          kb: round(ratio(b.kb, floor.kb), 2),
          gzipKb: round(ratio(b.gzipKb, floor.gzipKb), 2),
          moduleLoad: round(moduleLoad, 2),
          firstResponse: round(firstResponse, 2),
        },
        cpuRatios: {
          moduleLoad: round(
            ratio(f?.moduleLoadCpu.median ?? Number.NaN, floorFigures.moduleLoadCpu.median),
            2,
          ),
          firstResponse: round(
            ratio(f?.firstResponseCpu.median ?? Number.NaN, floorFigures.firstResponseCpu.median),
            2,
          ),
        },
        moduleLoadOk: withinRatio(moduleLoad, TARGETS.moduleLoadRatioToFloor),
        firstResponseOk: withinRatio(firstResponse, TARGETS.firstResponseRatioToFloor),
        statuses: f?.statuses ?? [],
        statusOk: successful(f?.statuses ?? []),
        sent: f?.sent ?? [],
        genericEvent: f?.genericEvent ?? false,
        // The long tail is in the JSON only through this cut: what matters is the few big ones.
        composition: b.composition.slice(0, 8),
      };
    });
  return { runs, floorSamples: floor.moduleLoadMs.runs, floor, rows };
}

/** Notes of the cold-start section. */
export const COLD_START_NOTES = [
  "Cold start: the floor (scripts/bench/floor/handler.ts) is the least a handler can be: the AWS SDK DynamoDBDocumentClient over DynamoDBClient, one ElectroDB entity, one zod/mini schema, middy, one GetItem. It is bundled exactly as the functions are (lib/bundling.ts esbuildOptions: code splitting, so its SDK's own dynamic imports become chunks too), and measured in the same passes as the functions; every ratio is a function's figure over the floor's (medians for the timings).",
  "Each sample is a fresh `node` (the machine's Node, as Lambda's nodejs24.x) that reads its event, then times import() of the bundle (module load) and import() plus the handler's answer to that event (import + first response) against DynamoDB Local with a seeded Tenant; Node's own start-up is left out, Lambda adds its runtime start on top. Environment as in Lambda (scripts/bench/env.ts coldStartEnv): AWS_LAMBDA_FUNCTION_NAME set; each bundle's entry binds the AWS adapters of the ports its row uses, each building its SDK client from its setting on first use (AI_QUEUE_URL on the responder, as the SQS client sends to the queue URL's host; EMAIL_FROM, AI_MODEL_ID; CURSOR_SECRET, or CURSOR_SECRET_ARN with --cursor-key secrets-manager); the SDK's standard AWS_ENDPOINT_URL_<SERVICE> variables point DynamoDB at DynamoDB Local and SQS, SES v2, Bedrock Runtime and Secrets Manager at a loopback responder in the bench (scripts/bench/aws-responder.ts) that answers the one operation each uses with a minimal valid response; dummy credentials in the environment, rate limits raised. The answer column lists the services a function called (+SQS …); a call the responder refused fails the sample.",
  "Passes go round-robin over every function, one process at a time, after one discarded pass (OS file cache, first writes); the floor is probed before every 8 functions of a pass so that a neighbour's burst of load on the shared cores hits it as it hits the functions. Events: the route's usual successful request (a fresh target where one is used up), a MODIFY stream record of the fixture listing requesting an AI enrichment, a score message for the fixture Lead, the schedule's event for the resume job.",
  "Cold start, site routes: sent as a page sends them (the fixture Tenant's publishable key and origin in the query, the Origin header, no Authorization), against the fixture listing, its Place and its Agent by slug. Webhook routes: against an endpoint seeded through the route itself (a spare per sample for delete, a test-ping delivery per sample for redeliver); test and redeliver only write the delivery (the stream consumer queues the send). getEvent reads an event the stream consumer's own events code derived from the fixture listing. Photo rows: an import queued by the route, gallery photos stored by the import worker's service function (a spare per sample for delete, whose file delete the responder's S3 answers). Workers: an SQS event of the message each producer sends (a test ping's delivery message; a queued import's first attempt), a fresh one per sample; their fetch or send goes to a name that does not resolve here (a deployed worker reaches public addresses only, so no loopback receiver can stand in), so the sample times the worker up to a failed attempt, which it records as such (`ok`). Rows still flagged (!) and why: createSiteLead (in Lambda a missing Turnstile secret throws, and with one the request calls Cloudflare's siteverify, which cannot be answered locally); confirmPropertyImage (it reads back the uploaded file through S3 HeadObject, a ranged GetObject and CopyObject, which the responder does not answer).",
  'KB: the minified .mjs files Node loads at import (index.mjs and the chunks it imports statically); gz: the same gzipped (level 9). Chunks reached only by a dynamic import() (an SDK client a code path needs, undici for a webhook send) load on use and are not counted; the bundling log lists them per function. Source maps are uploaded too but not loaded without --enable-source-maps.',
];

export const NOTES = [
  'DynamoDB Local reports 2 write units for a TransactWriteItems of small unindexed items whatever their number (and erratic extra units when items carry GSI keys or exceed 1 KB); real DynamoDB bills 2 WCU per item (≤ 1 KB). "WCU real" = WCU − the units Local reported for transactions + 2 × "tx items": table writes only. "idx" = GSI entries those transactions write (read off the request: a Put with an index key 1, an Update touching an index key 2); real DynamoDB bills those on top.',
  'RT counts every DynamoDB call of the request; "seq" counts those that started while no other was in flight (the latency that adds up).',
  'Costs are read on the wire: the in-process handlers talk to DynamoDB Local through a loopback recorder (scripts/bench/dynamo-recorder.ts) that asks every call for its consumed capacity and notes the answers, so the figures do not depend on the DynamoDB client the service uses; it adds a fraction of a millisecond per call to "ms".',
  'Costs are measured in-process with AUTH_CACHE_TTL_SECONDS=60 after one warm-up request per row, so the API key lookup is cached as in a warm Lambda; the remaining write on every request is the rate-limit counter.',
  'Load: AUTH_CACHE_TTL_SECONDS=60 (warm Lambda), rate limits raised to 1e9/min so the budget is never the bottleneck; the API server and the floor server (scripts/bench/floor/http-server.ts: node:http, one GetItem through the SDK DocumentClient, the item as JSON) each run in their own process, autocannon and the raw loops in the bench process, DynamoDB Local in Java, all on the same shared cores: compare the ratios (each against the floor of the same run) rather than the absolute figures. The listing read is one Query (the listing and its Areas); the floor is one GetItem of the same listing. The equal-work floor is the same floor server (BENCH_FLOOR_RATE_LIMIT=1) also sending the rate-limit UpdateItem of the service, started with the GetItem (Promise.all), on an item of its own. The site row sends a publishable key and origin in the query, the Origin of the page, and the headers CloudFront adds (the origin secret the server is configured with, a viewer address), with the site budgets raised like the others. `--cpu-prof DIR` writes a V8 profile of the API server process; `--load-runs N`, `--cpu-requests N`. `node scripts/bench/pipeline-cpu.ts` measures the in-process CPU of each row with the answers of DynamoDB replayed (no HTTP, no DynamoDB Local): steadier than CPU µs/req on a loaded machine.',
  'ms: in-process handler time (the real handler module invoked with an API Gateway event, DynamoDB Local over loopback, no HTTP), median.',
];

export const LEADS_NOTES = [
  "Leads: the Tenant is seeded with BatchWriteItem from the service's own item builders (withDerivedKeys, tokensOf, leadClaimOf, then the entities' key templates: the items put params build, scripts/bench/entity-items.ts): the same Lead, LeadSearchToken and UniqueClaim items writeLead puts in its transactions, written 25 a request. Leads are generated from a fixed seed (scripts/bench/lead-data.ts): accented names, statuses over the pipeline, 5 Agents + ~15% Unassigned, tiers incl. unscored, 8% short and 0.2% long notes, 2% archived; with --archived M the oldest M are archived too (a mature Tenant: archived before its live Leads were last touched).",
  'Leads "read/kept": items the request\'s Query calls read (ScannedCount, what DynamoDB bills) and kept after filter expressions (Count). Archived Leads sit in partitions of their own, so a live page reads limit + 1 = 51 Leads. Every list reads each partition once, with a filter expression up to 3 × 51 items (functions/data/bounded-read.ts), and answers a shorter page with a cursor rather than reading on. A q page reads search tokens (keys and words only) and then the Leads they name (BatchGetItem). The GET /v1/properties row: archived listings are in a list of their own too (gsi1 t#<tenant>#archived-properties), so its first page reads 51 listings whatever was archived before; each listing on the page adds its Area memberships\' Query.',
  'Leads "WCU real" counts 2 WCU per transaction item, which holds for items up to 1 KB (real DynamoDB bills a transactional write 2 WCU per started KB); "WCU +idx" adds 2 per index entry the transaction writes (a Lead is in 4 indexes). A status change writes the Lead alone: search tokens are rewritten only when a searched field (name, email, phone, notes) changes. Query RCU is the size of the items read, not returned, per call in 4 KB steps, halved for eventually consistent reads.',
  'Leads "SES/SQS": of the request\'s writes, those to the local email outbox and local queue (scoring); in AWS they are SES and SQS calls, not DynamoDB writes. "HTTP ms": the same request (fresh contacts and dedupe targets) through scripts/local/server.ts in its own process, sequential, median.',
];

function table(header: string[], rows: string[][], rightAligned: ReadonlySet<number>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const verdict = (ok: boolean) => (ok ? 'ok' : 'OVER');
const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const units = (n: number) => String(round(n, 2));
const loadRow = (name: string, x: LoadFigures) => [
  name,
  fixed(x.throughput, 0),
  fixed(x.p50, 2),
  fixed(x.p90, 2),
  fixed(x.p99, 2),
  fixed(x.max, 2),
  String(x.requests),
  String(x.failures),
];

function shares(composition: readonly PackageShare[], count: number): string {
  return composition
    .slice(0, count)
    .map((p) => {
      const folder = p.largestFolder
        ? `, of which ${p.largestFolder.folder}/ ${fixed(p.largestFolder.kb)} KB`
        : '';
      return `    ${p.name.padEnd(32)} ${fixed(p.kb).padStart(7)} KB  ${fixed(p.percent).padStart(5)}%${folder}`;
    })
    .join('\n');
}

export function renderReport(r: BenchReport): string {
  const out: string[] = [];
  out.push(
    `Listings & Leads bench — ${r.startedAt}, Node ${r.node}, ${r.cpus} CPUs, took ${r.elapsedSeconds.toFixed(0)} s; sections: ${r.sections.join(', ')}`,
  );
  out.push(
    `Load average (1, 5, 15 min): ${formatLoad(r.loadAverage.start)} at start, ${formatLoad(r.loadAverage.end)} at end`,
  );
  out.push('');

  if (r.coldStart) out.push(...renderColdStart(r.coldStart, r.targets), '');
  if (r.costs) out.push(...renderCosts(r.costs), '');
  if (r.load) out.push(...renderLoad(r.load), '');
  if (r.leads) out.push(...renderLeads(r.leads), '');
  if (r.events) out.push(...renderEvents(r.events, r.targets), '');
  if (r.photos) out.push(...renderPhotos(r.photos), '');
  if (r.site) out.push(...renderSite(r.site), '');
  if (r.tenants) out.push(...renderManyTenants(r.tenants), '');
  if (r.cost) out.push('Cost per Tenant, monthly (issue 25):', r.cost.table, '');
  out.push('Notes:');
  for (const note of r.notes) out.push(`  - ${note}`);
  return out.join('\n');
}

/** Load averages as `1.52 / 1.80 / 2.01`. */
export function formatLoad(averages: readonly number[]): string {
  return averages.length ? averages.map((n) => fixed(n, 2)).join(' / ') : '-';
}

/** `1.07×`, or `-` for a ratio that could not be measured. */
export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '-';
}

/** The pass/fail mark of a target. */
export function mark(ok: boolean): string {
  return ok ? 'pass' : 'FAIL';
}

/** Section 1: bundle, module load and first response of every function, over the floor's. */
export function renderColdStart(c: ColdStartSection, targets: typeof TARGETS): string[] {
  const out: string[] = [];
  const f = c.floor;
  const loadCap = formatRatio(targets.moduleLoadRatioToFloor);
  const firstCap = formatRatio(targets.firstResponseRatioToFloor);
  out.push(
    `1. Cold start against the floor (esbuild with lib/bundling.ts esbuildOptions; ${c.runs} fresh node processes per function, ${c.floorSamples} for the floor; import + first response against DynamoDB Local)`,
  );
  out.push(
    ...(c.loadAverage
      ? [
          `   Load average (1, 5, 15 min) during the passes: ${formatLoad(c.loadAverage.start)} at start, ${formatLoad(c.loadAverage.end)} at end`,
        ]
      : []),
    ...(c.cursorKey
      ? [
          `   Run as in Lambda; cursor key from ${c.cursorKey === 'env' ? 'CURSOR_SECRET (as deployed)' : 'Secrets Manager (CURSOR_SECRET_ARN)'}`,
        ]
      : []),
    `   Floor (${f.entry}): ${fixed(f.kb)} KB, ${fixed(f.gzipKb)} KB gzipped; module load median ${fixed(f.moduleLoadMs.median)} ms, p90 ${fixed(f.moduleLoadMs.p90)} ms; import + first response median ${fixed(f.firstResponseMs.median)} ms, p90 ${fixed(f.firstResponseMs.p90)} ms (answered ${f.statuses.join(', ')})`,
  );
  out.push(
    table(
      [
        'function',
        'KB',
        '×floor',
        'gz KB',
        '×floor',
        'load med',
        'p90',
        '×floor',
        `≤${loadCap}`,
        'first med',
        'p90',
        '×floor',
        `≤${firstCap}`,
        'cpu load×',
        'cpu first×',
        'answer',
      ],
      c.rows.map((row) => [
        row.name,
        fixed(row.kb),
        formatRatio(row.ratios.kb),
        fixed(row.gzipKb),
        formatRatio(row.ratios.gzipKb),
        fixed(row.moduleLoadMs.median),
        fixed(row.moduleLoadMs.p90),
        formatRatio(row.ratios.moduleLoad),
        mark(row.moduleLoadOk),
        fixed(row.firstResponseMs.median),
        fixed(row.firstResponseMs.p90),
        formatRatio(row.ratios.firstResponse),
        mark(row.firstResponseOk),
        formatRatio(row.cpuRatios.moduleLoad),
        formatRatio(row.cpuRatios.firstResponse),
        `${row.statuses.join(', ')}${row.statusOk ? '' : ' (!)'}${row.genericEvent ? ' (guessed event)' : ''}${row.sent.length ? ` +${row.sent.join('+')}` : ''}`,
      ]),
      new Set([1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 14]),
    ),
  );
  const loadFails = c.rows.filter((row) => !row.moduleLoadOk);
  const firstFails = c.rows.filter((row) => !row.firstResponseOk);
  const notOk = c.rows.filter((row) => !row.statusOk);
  out.push('');
  out.push(
    `   Module load ≤ ${loadCap} the floor: ${c.rows.length - loadFails.length}/${c.rows.length} pass${loadFails.length ? ` (FAIL: ${loadFails.map((row) => row.name).join(', ')})` : ''}`,
  );
  out.push(
    `   Import + first response ≤ ${firstCap} the floor: ${c.rows.length - firstFails.length}/${c.rows.length} pass${firstFails.length ? ` (FAIL: ${firstFails.map((row) => row.name).join(', ')})` : ''}`,
  );
  if (notOk.length) {
    out.push(
      `   (!) Not a successful answer, so its timing is not the usual path: ${notOk.map((row) => `${row.name} ${row.statuses.join('/')}`).join('; ')}`,
    );
  }
  const largest = [...c.rows].sort((a, b) => b.kb - a.kb)[0];
  if (largest) {
    out.push(`   Largest bundle (${largest.name}, ${fixed(largest.kb)} KB) is made of:`);
    out.push(shares(largest.composition, 8));
  }
  out.push(`   The floor (${fixed(f.kb)} KB) is made of:`);
  out.push(shares(f.composition, 6));
  return out;
}

function renderCosts(costs: readonly CostResult[]): string[] {
  const out: string[] = [];
  const samples = costs[0]?.samples ?? 0;
  out.push(
    `2. DynamoDB cost per request (DynamoDB Local, real handlers in-process, API key cached; median of ${samples})`,
  );
  out.push(
    table(
      [
        'operation',
        'status',
        'RT',
        'seq',
        'DynamoDB calls',
        'RCU',
        'WCU',
        'tx items',
        'WCU real',
        'idx',
        'ms',
        'targets',
      ],
      costs.map((c) => [
        c.itemsReturned === undefined ? c.label : `${c.label} → ${c.itemsReturned} items`,
        String(c.status),
        units(c.roundTrips),
        units(c.sequentialRoundTrips),
        c.operations.join(', '),
        units(c.readUnits),
        units(c.writeUnits),
        units(c.transactItems),
        units(c.realWriteUnitsEstimate),
        units(c.transactIndexWrites),
        fixed(c.latencyMs),
        c.checks.map((k) => `${k.label} ${verdict(k.ok)}`).join('; ') || '-',
      ]),
      new Set([2, 3, 5, 6, 7, 8, 9, 10]),
    ),
  );
  return out;
}

function renderLoad(l: LoadSection): string[] {
  const out: string[] = [];
  out.push(
    `3. Hot paths against the floor: ${l.connections} connections × ${l.durationSeconds} s, median of ${l.runs} runs (ratios to the floor of the same run), AUTH_CACHE_TTL_SECONDS=${l.authCacheTtlSeconds} (warm Lambda: key lookup cached)`,
  );
  out.push(
    `   Load average (1, 5, 15 min) during the section: ${formatLoad(l.loadAverage.start)} at start, ${formatLoad(l.loadAverage.end)} at end`,
  );
  const targetMark = (row: LoadSection['rows'][number]) =>
    row.meetsTargets === undefined ? '' : mark(row.meetsTargets);
  const floorRow = (f: LoadSection['floor'], ratios: string[]) => [
    f.label,
    fixed(f.figures.throughput, 0),
    fixed(f.figures.p50, 2),
    fixed(f.figures.p99, 2),
    String(f.figures.failures),
    fixed(f.cpuMicros, 0),
    ...ratios,
    '',
  ];
  const toFloor = l.equalWorkFloor.toFloor;
  out.push(
    table(
      [
        '',
        'req/s',
        'p50 ms',
        'p99 ms',
        'fail',
        'CPU µs/req',
        'p50 ×',
        'p99 ×',
        'req/s ×',
        'CPU ×',
        'p50 ×eq',
        'req/s ×eq',
        'CPU ×eq',
        'target',
      ],
      [
        floorRow(l.floor, ['1.00×', '1.00×', '1.00×', '1.00×', '', '', '']),
        floorRow(l.equalWorkFloor, [
          formatRatio(toFloor?.ratios.p50 ?? Number.NaN),
          formatRatio(toFloor?.ratios.p99 ?? Number.NaN),
          formatRatio(toFloor?.ratios.throughput ?? Number.NaN),
          formatRatio(toFloor?.cpuRatio ?? Number.NaN),
          '1.00×',
          '1.00×',
          '1.00×',
        ]),
        ...l.rows.map((row) => [
          row.label,
          fixed(row.figures.throughput, 0),
          fixed(row.figures.p50, 2),
          fixed(row.figures.p99, 2),
          String(row.figures.failures),
          fixed(row.cpuMicros, 0),
          formatRatio(row.ratios.p50),
          formatRatio(row.ratios.p99),
          formatRatio(row.ratios.throughput),
          formatRatio(row.cpuRatio),
          formatRatio(row.equalWorkRatios.p50),
          formatRatio(row.equalWorkRatios.throughput),
          formatRatio(row.equalWorkCpuRatio),
          targetMark(row),
        ]),
      ],
      new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    ),
  );
  out.push(
    `   Target (GET /v1/properties/{id}): p50 ≤ ${formatRatio(HOT_PATH_TARGETS.p50RatioMax)} and throughput ≥ ${formatRatio(HOT_PATH_TARGETS.throughputRatioMin)} the floor (×: the issue's floor, one GetItem). ×eq: against the equal-work floor, the same server sending the GetItem and the service's rate-limit UpdateItem together (the DynamoDB work of a GET of the service): what is left above 1.00× there is our own code. CPU µs/req: the server process's user + system CPU over ${l.cpuRequests} sequential requests (process.cpuUsage), network and DynamoDB wait excluded.`,
  );
  out.push('   Context, DynamoDB alone (raw SDK loops, no HTTP server):');
  out.push(
    table(
      ['', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'requests', 'failures'],
      [
        loadRow('raw GetItem loop', l.raw.getItem),
        loadRow('raw rate-limit UpdateItem then GetItem loop', l.raw.rateLimitUpdateThenGet),
      ],
      new Set([1, 2, 3, 4, 5, 6, 7]),
    ),
  );
  return out;
}

const thousands = (n: number) => n.toLocaleString('en');
const shareOf = (counts: Record<string, number>, total: number) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${fixed((100 * v) / total, 0)}%`)
    .join(', ');

function leadsRow(row: LeadsRow, target: number): string[] {
  const c = row.cost;
  const label = c.itemsReturned === undefined ? row.label : `${row.label} → ${c.itemsReturned}`;
  return [
    label,
    String(c.status),
    units(c.roundTrips),
    units(c.sequentialRoundTrips),
    units(c.readUnits),
    units(c.writeUnits),
    units(c.realWriteUnitsEstimate),
    units(row.writeUnitsWithIndexes),
    units(c.localPortWrites),
    c.queryItemsRead || c.queryItemsReturned
      ? `${units(c.queryItemsRead)}/${units(c.queryItemsReturned)}`
      : '-',
    fixed(c.latencyMs),
    row.httpMs === null ? '-' : fixed(row.httpMs),
    row.rcuRatio === null ? '-' : `${fixed(row.rcuRatio, 2)}×`,
    [
      ...(row.ratioOk === null ? [] : [`≤${target}× ${verdict(row.ratioOk)}`]),
      ...c.checks.map((k) => `${k.label} ${verdict(k.ok)}`),
      ...row.targets.map((k) => `${k.label} ${verdict(k.ok)}`),
    ].join('; ') || '-',
  ];
}

/** Section 4: the 20,000-Lead Tenant, its seeding, and the ingest and list rows. */
export function renderLeads(l: LeadsSection): string[] {
  const s = l.seed;
  const p = s.population;
  const out: string[] = [];
  out.push(
    `4. Leads (issues 4, 26): one Tenant with ${thousands(s.leads)} Leads (the oldest ${thousands(s.archivedFirst ?? 0)} archived) and ${s.agents} Agents; median of ${l.samples} requests after a warm-up, API key cached`,
  );
  out.push(
    `   Seeded in ${fixed(s.seconds)} s: ${thousands(s.items.total)} items (${thousands(s.items.leads)} Leads, ${thousands(s.items.searchTokens)} search tokens (${fixed(s.items.searchTokens / Math.max(1, s.items.leads))} a Lead), ${thousands(s.items.claims)} claims) in ${thousands(s.batchWriteRequests)} BatchWriteItem of ≤ 25, ${s.inFlight} in flight, ${thousands(s.itemsPerSecond)} items/s, ${s.unprocessedRetries} retries`,
  );
  const z = s.itemSizes;
  const sized = (name: string, x: (typeof z)['lead']) =>
    `${name} ${thousands(x.averageBytes)} B (max ${thousands(x.maxBytes)}, ${fixed((100 * x.overOneKb) / Math.max(1, x.count), 0)}% > 1 KB)`;
  out.push(
    `   Item sizes by DynamoDB's rules, average: ${sized('Lead', z.lead)}, ${sized('search token', z.searchToken)}, ${sized('claim', z.claim)}`,
  );
  out.push(`   Status: ${shareOf(p.byStatus, p.count)}`);
  out.push(
    `   Tier: ${shareOf(p.byTier, p.count)}; Unassigned ${fixed((100 * (p.byOwner.unassigned ?? 0)) / p.count, 0)}%, archived ${p.archived}, with notes ${p.withNotes}, email only ${p.emailOnly}, phone only ${p.phoneOnly}`,
  );
  out.push(
    table(
      [
        'request',
        'status',
        'RT',
        'seq',
        'RCU',
        'WCU',
        'WCU real',
        'WCU +idx',
        'SES/SQS',
        'read/kept',
        'ms',
        'HTTP ms',
        'RCU ×unfilt.',
        'targets',
      ],
      l.rows.map((row) => leadsRow(row, l.targetRatio)),
      new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    ),
  );
  for (const row of l.rows.filter((r) => r.kind === 'ingest')) {
    out.push(`   ${row.label}: ${row.cost.operations.join(', ')}`);
  }
  for (const row of l.rows.filter((r) => r.ratioOk === false)) {
    const c = row.cost;
    out.push(
      `   Over ${l.targetRatio}×: ${row.label.trim()} reads ${row.reads}; its filter expression kept ${units(c.queryItemsReturned)} of the ${units(c.queryItemsRead)} items read, in ${units(c.sequentialRoundTrips)} sequential calls (one Query of Limit 51 per call, rate-limit write included).`,
    );
  }
  return out;
}

/** The events section: consumer throughput, and webhook arrival against its target. */
export function renderEvents(e: EventsSection, targets: typeof TARGETS): string[] {
  const { throughput: t, webhook: w } = e;
  return [
    'Events and webhooks (local stack pieces in-process)',
    `  consumer: ${t.records} records in ${t.batches} batches → ${t.events} events in ${fixed(t.seconds, 1)} s: ${fixed(t.eventsPerSecond, 1)} events/s`,
    `  webhook test delivery, API call → receiver (${w.samples} samples): p50 ${fixed(w.p50Ms, 0)} ms, p99 ${fixed(w.p99Ms, 0)} ms, max ${fixed(w.maxMs, 0)} ms  ${mark(w.p50Ms <= targets.webhookArrivalP50Ms)} p50 ≤ ${targets.webhookArrivalP50Ms} ms`,
  ];
}

/** The photos section: a 5 MB JPEG imported by URL, the import worker's memory, and the renditions per photo size. */
export function renderPhotos(p: PhotosSection): string[] {
  return [
    'Photo import by URL (local stack pieces in-process, s3rver as the bucket)',
    `  ${fixed(p.fileBytes / 1048576, 1)} MB JPEG, API request → import ready (${p.samples} samples): p50 ${fixed(p.p50Ms, 0)} ms, p90 ${fixed(p.p90Ms, 0)} ms, max ${fixed(p.maxMs, 0)} ms`,
    `  import worker, one import in a fresh process: peak RSS ${fixed(p.workerPeakRssMb, 1)} MB (${fixed(p.workerBaselineRssMb, 1)} MB with its modules loaded, before the import)`,
    ...(p.renditions ?? []).flatMap((r) => [
      `  renditions of a ${r.photo} (${r.width} × ${r.height}, ${fixed(r.fileBytes / 1048576, 1)} MB), libvips on one thread, a fresh process: ${fixed(r.medianMs, 0)} ms a photo (median of ${r.runs - 1}; first ${fixed(r.firstMs, 0)} ms), peak RSS ${fixed(r.peakRssMb, 1)} MB (${fixed(r.baselineRssMb, 1)} MB with sharp loaded)`,
      `    ${r.files.map((f) => `${f.type.replace('image/', '')} ${f.width} px ${fixed(f.bytes / 1024, 0)} KB`).join(', ')}`,
    ]),
  ];
}
