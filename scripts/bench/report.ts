import type { BundleResult, PackageShare } from './bundles.ts';
import type { CostResult } from './dynamo-costs.ts';
import type { LeadsRow, LeadsSection } from './leads.ts';
import type { LoadFigures } from './load.ts';
import { round, type Summary } from './stats.ts';

/** The targets the figures are judged against; the same values go into the JSON. */
export const TARGETS = {
  bundleKb: 400,
  moduleLoadMedianMs: 100,
  authenticatedGetSequentialRoundTrips: 2,
  getByIdReadUnits: 0.5,
  getByIdWriteUnits: 1,
  /** Issue 4: a filtered Leads page costs at most this many times the unfiltered page's RCU. */
  filteredLeadsPageRcuRatio: 5,
} as const;

export interface BundleRow {
  name: string;
  entry: string;
  kb: number;
  bundleOk: boolean;
  loadMs: { median: number; min: number; p90: number; runs: number };
  loadOk: boolean;
  composition: PackageShare[];
}

export interface LoadSection {
  path: string;
  connections: number;
  durationSeconds: number;
  authCacheTtlSeconds: number;
  server: LoadFigures;
  /** Raw GetItem of the same listing: the brief's floor, and the base of `ratio`. */
  floor: LoadFigures;
  /** Raw rate-limit UpdateItem + GetItem: the DynamoDB part of a request without the server. */
  floorWithRateLimit: LoadFigures;
  ratio: { p50: number; throughput: number };
  ratioToFloorWithRateLimit: { p50: number; throughput: number };
}

export interface BenchReport {
  startedAt: string;
  elapsedSeconds: number;
  node: string;
  cpus: number;
  /** 1-minute load average at start and end: the cores are shared, this says how much. */
  loadAverage: { start: number; end: number };
  targets: typeof TARGETS;
  bundles: BundleRow[];
  costs: CostResult[];
  load: LoadSection;
  /** The leads section (issue 4); null when run with --leads 0. */
  leads: LeadsSection | null;
  notes: string[];
}

export function bundleRows(bundles: readonly BundleResult[], loads: Map<string, Summary>): BundleRow[] {
  return bundles.map((b) => {
    const s = loads.get(b.name);
    const loadMs = {
      median: round(s?.median ?? Number.NaN),
      min: round(s?.min ?? Number.NaN),
      p90: round(s?.p90 ?? Number.NaN),
      runs: s?.count ?? 0,
    };
    return {
      name: b.name,
      entry: b.entry,
      kb: b.kb,
      bundleOk: b.kb <= TARGETS.bundleKb,
      loadMs,
      loadOk: loadMs.median <= TARGETS.moduleLoadMedianMs,
      // The long tail is in the JSON only through this cut: what matters is the few big ones.
      composition: b.composition.slice(0, 8),
    };
  });
}

export function loadSection(
  path: string,
  options: { connections: number; durationSeconds: number },
  server: LoadFigures,
  floor: LoadFigures,
  floorWithRateLimit: LoadFigures,
): LoadSection {
  const ratio = (base: LoadFigures) => ({
    p50: round(server.p50 / base.p50, 2),
    throughput: round(server.throughput / base.throughput, 2),
  });
  return {
    path,
    ...options,
    authCacheTtlSeconds: 60,
    server,
    floor,
    floorWithRateLimit,
    ratio: ratio(floor),
    ratioToFloorWithRateLimit: ratio(floorWithRateLimit),
  };
}

export const NOTES = [
  'DynamoDB Local reports 2 write units for a TransactWriteItems of small unindexed items whatever their number (and erratic extra units when items carry GSI keys or exceed 1 KB); real DynamoDB bills 2 WCU per item (≤ 1 KB). "WCU real" = WCU − the units Local reported for transactions + 2 × "tx items": table writes only. "idx" = GSI entries those transactions write (read off the request: a Put with an index key 1, an Update touching an index key 2); real DynamoDB bills those on top.',
  'RT counts every DynamoDB call of the request; "seq" counts those that started while no other was in flight (the latency that adds up).',
  'Costs are measured in-process with AUTH_CACHE_TTL_SECONDS=60 after one warm-up request per row, so the API key lookup is cached as in a warm Lambda; the remaining write on every request is the rate-limit counter.',
  'Load: AUTH_CACHE_TTL_SECONDS=60 (warm Lambda), rate limits raised to 1e9/min so the budget is never the bottleneck; the server runs in its own process, autocannon and the floor loop in the bench process, DynamoDB Local in Java, all on the same shared cores: compare the ratio rather than the absolute figures.',
  'ms: in-process handler time (the real handler module invoked with an API Gateway event, DynamoDB Local over loopback, no HTTP), median.',
  'Module load: each sample is a fresh `node` that only awaits import() of the bundle (TABLE_NAME, AWS_REGION and dummy credentials set; no endpoint), one discarded pass first to warm the OS file cache; Lambda adds its own runtime start on top.',
];

export const LEADS_NOTES = [
  "Leads: the Tenant is seeded with BatchWriteItem from the service's own item builders (withDerivedKeys, tokensOf, leadClaimOf, then ElectroDB put params): the same Lead, LeadSearchToken and UniqueClaim items writeLead puts in its transactions, written 25 a request. Leads are generated from a fixed seed (scripts/bench/lead-data.ts): accented names, statuses over the pipeline, 5 Agents + ~15% Unassigned, tiers incl. unscored, 8% short and 0.2% long notes, 2% archived.",
  'Leads "read/kept": items the request\'s Query calls read (ScannedCount, what DynamoDB bills) and kept after filter expressions (Count). A page keeps limit + 1 = 51 items (ElectroDB `count`); with a filter expression each Query reads an eighth more (Limit 58), so up to 7 archived or filtered-out Leads among them cost no second Query.',
  'Leads "WCU real" counts 2 WCU per transaction item, which holds for items up to 1 KB; a search token carries a copy of its Lead, and real DynamoDB bills a transactional write (put or delete) 2 WCU per started KB, so for the items the "Item sizes" line shows over 1 KB the real figure is higher. Query RCU is the size of the items read, not returned, per call in 4 KB steps, halved for eventually consistent reads.',
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
    `Listings & Leads bench — ${r.startedAt}, Node ${r.node}, ${r.cpus} CPUs (load average ${fixed(r.loadAverage.start, 2)} at start, ${fixed(r.loadAverage.end, 2)} at end), took ${r.elapsedSeconds.toFixed(0)} s`,
  );
  out.push('');

  const runs = r.bundles[0]?.loadMs.runs ?? 0;
  out.push(
    `1. Handler bundles (esbuild with lib/bundling.ts bundlingDefaults) and cold module load (${runs} fresh node processes each)`,
  );
  out.push(
    table(
      [
        'handler',
        'entry',
        'bundle KB',
        `≤${r.targets.bundleKb}KB`,
        'load ms median',
        'min',
        'p90',
        `≤${r.targets.moduleLoadMedianMs}ms`,
      ],
      r.bundles.map((b) => [
        b.name,
        b.entry,
        fixed(b.kb),
        verdict(b.bundleOk),
        fixed(b.loadMs.median),
        fixed(b.loadMs.min),
        fixed(b.loadMs.p90),
        verdict(b.loadOk),
      ]),
      new Set([2, 4, 5, 6]),
    ),
  );
  const over = r.bundles.filter((b) => !b.bundleOk || !b.loadOk);
  const largest = [...r.bundles].sort((a, b) => b.kb - a.kb)[0];
  if (largest) {
    out.push('');
    out.push(
      over.length
        ? `   Over target: ${over.map((b) => b.name).join(', ')}. What the largest (${largest.name}, ${fixed(largest.kb)} KB) is made of:`
        : `   All within targets. Largest bundle (${largest.name}, ${fixed(largest.kb)} KB) is made of:`,
    );
    out.push(shares(largest.composition, 8));
    const smallest = [...r.bundles].sort((a, b) => a.kb - b.kb)[0];
    // Worth showing only when some handler really is lighter: it shows what the heavy ones add.
    if (smallest && smallest.kb < largest.kb / 2) {
      out.push(`   Smallest (${smallest.name}, ${fixed(smallest.kb)} KB):`);
      out.push(shares(smallest.composition, 4));
    }
  }
  out.push('');

  const samples = r.costs[0]?.samples ?? 0;
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
      r.costs.map((c) => [
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
  out.push('');

  const l = r.load;
  out.push(
    `3. Load: GET ${l.path}, ${l.connections} connections × ${l.durationSeconds} s, AUTH_CACHE_TTL_SECONDS=${l.authCacheTtlSeconds} (warm Lambda: key lookup cached)`,
  );
  out.push(
    table(
      ['', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'requests', 'failures'],
      [
        loadRow('local HTTP server (scripts/local/server.ts)', l.server),
        loadRow('floor: raw GetItem, DocumentClient', l.floor),
        loadRow('raw rate-limit UpdateItem + GetItem', l.floorWithRateLimit),
      ],
      new Set([1, 2, 3, 4, 5, 6, 7]),
    ),
  );
  out.push(
    `   server / floor (GetItem): p50 ${fixed(l.ratio.p50, 2)}×, throughput ${fixed(l.ratio.throughput, 2)}× (the server reaches ${fixed(l.ratio.throughput * 100, 0)}% of the raw GetItem rate)`,
  );
  out.push(
    `   server / raw UpdateItem + GetItem: p50 ${fixed(l.ratioToFloorWithRateLimit.p50, 2)}×, throughput ${fixed(l.ratioToFloorWithRateLimit.throughput, 2)}× (what HTTP, middy, zod and ElectroDB add on top of one rate-limit write and one read)`,
  );
  if (r.leads) {
    out.push('');
    out.push(...renderLeads(r.leads));
  }
  out.push('');
  out.push('Notes:');
  for (const note of r.notes) out.push(`  - ${note}`);
  return out.join('\n');
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
    ].join('; ') || '-',
  ];
}

/** Section 4: the 20,000-Lead Tenant, its seeding, and the ingest and list rows. */
export function renderLeads(l: LeadsSection): string[] {
  const s = l.seed;
  const p = s.population;
  const out: string[] = [];
  out.push(
    `4. Leads (issue 4): one Tenant with ${thousands(s.leads)} Leads and ${s.agents} Agents; median of ${l.samples} requests after a warm-up, API key cached`,
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
        'SES/SQS',
        'read/kept',
        'ms',
        'HTTP ms',
        'RCU ×unfilt.',
        'targets',
      ],
      l.rows.map((row) => leadsRow(row, l.targetRatio)),
      new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
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
