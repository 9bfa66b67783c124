/**
 * The pure parts of the many-Tenant section (issue 25, point 4; many-tenants.ts runs it): the skewed
 * Tenant sizes, the skewed mix of site requests each container serves, and the figures and table
 * made of what the containers measured. No I/O here, so the unit tests run it as it is.
 */
import { median, percentile, round } from './stats.ts';

/**
 * A seeded uniform draw in [0, 1) (Park–Miller). Not lead-data.ts's generator: importing that
 * module here pulls the Lead entity's types into the unit test's program, where they check
 * differently. Any steady sequence does: the sizes and the plan only need to repeat run to run.
 */
function seeded(seed: number): () => number {
  let state = (Math.abs(Math.floor(seed)) % 2147483646) + 1;
  const next = () => {
    state = (state * 48271) % 2147483647;
    return (state - 1) / 2147483646;
  };
  // The first draws of neighbouring seeds are close together; a few steps part them.
  for (let i = 0; i < 3; i++) next();
  return next;
}

/** The index drawn from cumulative weights (ascending, the last the total). */
function drawIndex(rand: () => number, cumulative: readonly number[]): number {
  const x = rand() * (cumulative.at(-1) ?? 0);
  const i = cumulative.findIndex((upTo) => x < upTo);
  return i < 0 ? cumulative.length - 1 : i;
}

/** Running totals of `weights`. */
const runningTotals = (weights: readonly number[]) => {
  let sum = 0;
  return weights.map((w) => (sum += w));
};

/** How fast the sizes fall with rank: rank r holds largest / r^1.5 (50,000 → 17,678 → 9,623 → …). */
const SIZE_DECAY = 1.5;
/** A small agency's live listings: "a few hundred", drawn in [MIN, MIN + SPREAD). */
const SMALL_MIN = 100;
const SMALL_SPREAD = 400;

/**
 * Live listings per Tenant, largest first: the largest has `largest`, the next ones fall off as a
 * power of their rank, and from where that drops under a small agency's size every Tenant has a few
 * hundred (100–499, seeded), so most Tenants are small and a few hold most listings.
 */
export function tenantSizes(tenants: number, largest: number, seed = 25): number[] {
  const rand = seeded(seed);
  const sizes: number[] = [];
  for (let rank = 1; rank <= tenants; rank++) {
    const small = SMALL_MIN + Math.floor(rand() * SMALL_SPREAD);
    const byRank = Math.round(largest / rank ** SIZE_DECAY);
    sizes.push(rank === 1 ? largest : Math.min(largest, Math.max(byRank, small)));
  }
  return sizes.sort((a, b) => b - a);
}

/** The site requests of the mix, by weight: what a page view of an agency's website sends. */
export const REQUEST_KINDS = [
  ['search', 50],
  ['detail', 25],
  ['similar', 10],
  ['locations', 15],
] as const satisfies readonly (readonly [string, number])[];
export type RequestKind = (typeof REQUEST_KINDS)[number][0];

/** One planned request: which Tenant (by rank, 0 the largest), what, and the listing it opens. */
export interface PlannedRequest {
  tenant: number;
  kind: RequestKind;
  /** For detail and similar: an index into the Tenant's sample slugs (wrapped by the runner). */
  listing: number;
  /** For search: an index into SEARCH_QUERIES. */
  query: number;
}

/** The searches of the mix: the first page, and the filters a visitor sets most. */
export const SEARCH_QUERIES: readonly Record<string, string>[] = [
  {},
  { listing: 'sale', beds: '2', sort: 'price_asc' },
  { listing: 'rent', min_price: '1000', max_price: '3000' },
  { q: 'sea views' },
  { offset: '24' },
];

/**
 * Each container's requests: a Tenant drawn by traffic (rank r weighs 1/r, so the largest agencies'
 * sites see the most visitors while every small one still gets some), then a request kind by
 * REQUEST_KINDS. Each container draws its own sequence from the same seed plus its number.
 */
export function requestPlan(
  tenants: number,
  containers: number,
  requestsPerContainer: number,
  seed = 25,
): PlannedRequest[][] {
  const traffic = runningTotals(Array.from({ length: tenants }, (_, rank) => 1 / (rank + 1)));
  const kinds = runningTotals(REQUEST_KINDS.map(([, weight]) => weight));
  return Array.from({ length: containers }, (_, n) => {
    const rand = seeded(seed * 1000 + n + 1);
    return Array.from({ length: requestsPerContainer }, () => ({
      tenant: drawIndex(rand, traffic),
      kind: REQUEST_KINDS[drawIndex(rand, kinds)]?.[0] ?? 'search',
      listing: Math.floor(rand() * 1_000_000),
      query: Math.floor(rand() * SEARCH_QUERIES.length),
    }));
  });
}

/** What one request cost, as a container measured it. */
export interface TenantRequestSample {
  tenant: number;
  kind: RequestKind;
  status: number;
  /** Whether this request loaded the Tenant's catalogue (first use in the container, or after an eviction). */
  cold: boolean;
  ms: number;
  roundTrips: number;
  /** Sequential round trips after the rate-limit write (the request's first round). */
  afterRateLimit: number;
  readUnits: number;
  /** Catalogue snapshot reads (S3 GETs). */
  s3Reads: number;
}

/** A container's figures over its run. */
export interface ContainerFigures {
  container: number;
  memoryMb: number;
  budgetBytes: number;
  requests: number;
  tenantsServed: number;
  /** Cold catalogue loads: from the snapshot, and from the table (no usable snapshot). */
  snapshotLoads: number;
  tableLoads: number;
  s3Reads: number;
  evictions: number;
  /** Estimated bytes of catalogues held after each request: the largest, and at the end. */
  maxBytesHeld: number;
  endBytesHeld: number;
  catalogues: number;
  /** The process's peak resident set size, MB. */
  peakRssMb: number;
}

export interface RequestRow {
  label: string;
  requests: number;
  roundTrips: number;
  maxRoundTrips: number;
  afterRateLimit: number;
  maxAfterRateLimit: number;
  readUnits: number;
  maxReadUnits: number;
  s3Reads: number;
  p50Ms: number;
  p99Ms: number;
}

/** Medians, worst cases and tails of a group of requests. */
export function requestRow(label: string, samples: readonly TenantRequestSample[]): RequestRow {
  const med = (pick: (s: TenantRequestSample) => number) => round(median(samples.map(pick)), 2);
  const max = (pick: (s: TenantRequestSample) => number) => round(Math.max(0, ...samples.map(pick)), 2);
  const times = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    label,
    requests: samples.length,
    roundTrips: med((s) => s.roundTrips),
    maxRoundTrips: max((s) => s.roundTrips),
    afterRateLimit: med((s) => s.afterRateLimit),
    maxAfterRateLimit: max((s) => s.afterRateLimit),
    readUnits: med((s) => s.readUnits),
    maxReadUnits: max((s) => s.readUnits),
    s3Reads: samples.reduce((sum, s) => sum + s.s3Reads, 0),
    p50Ms: round(percentile(times, 50), 1),
    p99Ms: round(percentile(times, 99), 1),
  };
}

/** All requests, then warm and cold apart, then each kind warm (what a visitor mostly meets). */
export function requestRows(samples: readonly TenantRequestSample[]): RequestRow[] {
  const warm = samples.filter((s) => !s.cold);
  const rows = [
    requestRow('all requests', samples),
    requestRow('warm (catalogue held)', warm),
    requestRow(
      'cold (catalogue loaded)',
      samples.filter((s) => s.cold),
    ),
  ];
  for (const [kind] of REQUEST_KINDS) {
    const some = warm.filter((s) => s.kind === kind);
    if (some.length) rows.push(requestRow(`  warm ${kind}`, some));
  }
  return rows.filter((r) => r.requests > 0);
}

/** Whether a container's catalogues stayed within its byte budget after every request. */
export const withinBudget = (c: ContainerFigures): boolean => c.maxBytesHeld <= c.budgetBytes;

export interface ManyTenantsSection {
  tenants: number;
  largest: number;
  sizes: number[];
  totalListings: number;
  seedSeconds: number;
  snapshotSeconds: number;
  snapshotBytes: number;
  containers: ContainerFigures[];
  rows: RequestRow[];
  /** Requests answered other than 200. */
  failed: number;
}

/** The budget's share of the memory setting, as the containers reported it (`40%`). */
function budgetShare(containers: readonly ContainerFigures[]): string {
  const c = containers[0];
  return c ? `${Math.round((100 * c.budgetBytes) / (c.memoryMb * 1048576))}%` : 'a share';
}

const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
const mark = (ok: boolean) => (ok ? '✓' : '✗');

/** Fixed-width table lines: the first column left, the others right. */
function table(header: string[], body: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    `   ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')}`;
  return [line(header), ...body.map(line)];
}

/** The many-Tenant section of the report. */
export function renderManyTenants(s: ManyTenantsSection): string[] {
  const small = s.sizes.filter((n) => n < 500).length;
  const requests = s.containers.reduce((sum, c) => sum + c.requests, 0);
  const out = [
    `Many Tenants (issue 25, point 4): ${s.tenants} Tenants, ${s.totalListings.toLocaleString('en')} live listings in all (largest ${s.sizes.slice(0, 5).join(', ')}…; ${small} with fewer than 500), seeded in ${s.seedSeconds} s, snapshots built in ${s.snapshotSeconds} s (${mb(s.snapshotBytes)} MB gzipped); ${requests} site requests through the real handlers in ${s.containers.length} fresh processes standing for containers${s.failed ? `; ${s.failed} NOT 200` : ''}`,
    ...table(
      [
        'requests',
        'n',
        'RT',
        'max RT',
        'seq after RL',
        'max',
        'RCU',
        'max RCU',
        'S3 GET',
        'p50 ms',
        'p99 ms',
      ],
      s.rows.map((r) => [
        r.label,
        String(r.requests),
        String(r.roundTrips),
        String(r.maxRoundTrips),
        String(r.afterRateLimit),
        String(r.maxAfterRateLimit),
        String(r.readUnits),
        String(r.maxReadUnits),
        String(r.s3Reads),
        r.p50Ms.toFixed(1),
        r.p99Ms.toFixed(1),
      ]),
    ),
    ...table(
      [
        'container',
        'MB',
        'requests',
        'Tenants',
        'cold loads (snapshot+table)',
        'S3 GET',
        'evictions',
        'catalogues',
        'max held MB',
        'budget MB',
        'within',
        'peak RSS MB',
        'RSS ≤ MB',
      ],
      s.containers.map((c) => [
        `#${c.container + 1}`,
        String(c.memoryMb),
        String(c.requests),
        String(c.tenantsServed),
        `${c.snapshotLoads + c.tableLoads} (${c.snapshotLoads}+${c.tableLoads})`,
        String(c.s3Reads),
        String(c.evictions),
        String(c.catalogues),
        mb(c.maxBytesHeld),
        mb(c.budgetBytes),
        mark(withinBudget(c)),
        c.peakRssMb.toFixed(0),
        mark(c.peakRssMb <= c.memoryMb),
      ]),
    ),
    `   Tenants are drawn by traffic (rank r weighs 1/r), requests by kind (${REQUEST_KINDS.map(([k, w]) => `${k} ${w}%`).join(', ')}), each from a new visitor. A cold request is one that loaded its Tenant's catalogue (one S3 GET of the snapshot, then the catch-up Query); "held" is the catalogues' estimated bytes after each request (services/site-catalogue.ts), against the budget of ${budgetShare(s.containers)} of the container's memory (MB); evictions are catalogues dropped least recently used first to stay within it. Peak RSS is the whole process (the bench's recorder and clients too, and garbage V8 has not yet collected: the process runs with no heap cap), so "RSS ≤ MB" ✗ says that memory setting has no room to spare, not that it fails; the site functions are deployed at 1,024 MB.`,
  ];
  return out;
}
