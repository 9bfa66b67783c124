/**
 * Section 3 of the bench (issue 14): the hot paths under load against a fair floor. The floor is a
 * bare `node:http` server answering each request with one GetItem through the same SDK
 * DynamoDBDocumentClient (scripts/bench/floor/http-server.ts); it and the local API server each run
 * in their own process and are driven by the same autocannon settings. A second, equal-work floor
 * (the same server, also sending the service's rate-limit UpdateItem beside the GetItem) does the
 * DynamoDB work a GET of the service does, so the service's ratio to it is the cost of our own code.
 * Each run measures both floors and then every row, and each row's ratios are taken against the
 * floors of its own run; the table shows medians over the runs. Before the runs, each server's in-process CPU per request is read
 * with process.cpuUsage around N sequential requests (the wait on the network and DynamoDB costs
 * no CPU, so it is left out).
 */
import { resolve } from 'node:path';
import type { BenchFixture } from './dynamo-costs.ts';
import { UNBOUNDED_RATE_LIMIT } from './env.ts';
import {
  type ApiServer,
  cpuPerRequest,
  dynamoFloor,
  hammer,
  type LoadFigures,
  type LoadOptions,
  type LoadRequest,
  startChildServer,
  startServerProcess,
} from './load.ts';
import { median, round } from './stats.ts';

/** Issue 14's targets for `GET /v1/properties/{id}` against the bare floor (medians of the runs). */
export const HOT_PATH_TARGETS = { p50RatioMax: 1.5, throughputRatioMin: 0.6 } as const;

/** One loaded request: the row's label, the operation it hits, and what autocannon sends. */
export interface HotPathCase {
  label: string;
  operationId: string;
  path: string;
  request: LoadRequest;
  /** Whether issue 14's targets apply to this row. */
  targeted: boolean;
}

export interface Ratios {
  p50: number;
  p99: number;
  throughput: number;
}

export interface HotPathRow {
  label: string;
  operationId: string;
  /** Per-metric medians over the runs. */
  figures: LoadFigures;
  /** Medians of each run's ratio to the floor of that run (the issue's floor: the targets judge these). */
  ratios: Ratios;
  /** The same against the equal-work floor (GetItem + the rate-limit UpdateItem, together). */
  equalWorkRatios: Ratios;
  runs: LoadFigures[];
  /** Server process CPU per request, µs (user + system), and its ratio to each floor's. */
  cpuMicros: number;
  cpuRatio: number;
  equalWorkCpuRatio: number;
  /** For the targeted row: p50 ≤ 1.5× and throughput ≥ 0.6× the floor. */
  meetsTargets?: boolean;
}

export interface FloorFigures {
  label: string;
  figures: LoadFigures;
  runs: LoadFigures[];
  cpuMicros: number;
  /** The equal-work floor only: its ratios to the issue's floor (medians of the runs) and CPU ratio. */
  toFloor?: { ratios: Ratios; cpuRatio: number };
}

export interface HotPathSection {
  connections: number;
  durationSeconds: number;
  runs: number;
  cpuRequests: number;
  authCacheTtlSeconds: number;
  loadAverage: { start: number[]; end: number[] };
  floor: FloorFigures;
  /** The equal-work floor: the same GetItem and the service's rate-limit UpdateItem, started together. */
  equalWorkFloor: FloorFigures;
  rows: HotPathRow[];
  /** Context: the DynamoDB part alone, without any HTTP server (raw SDK loops). */
  raw: { getItem: LoadFigures; rateLimitUpdateThenGet: LoadFigures };
}

/** Median of every figure over the runs. */
export function medianFigures(runs: readonly LoadFigures[]): LoadFigures {
  const of = (pick: (f: LoadFigures) => number) => median(runs.map(pick));
  return {
    requests: Math.round(of((f) => f.requests)),
    throughput: round(
      of((f) => f.throughput),
      0,
    ),
    p50: round(
      of((f) => f.p50),
      2,
    ),
    p90: round(
      of((f) => f.p90),
      2,
    ),
    p99: round(
      of((f) => f.p99),
      2,
    ),
    max: round(
      of((f) => f.max),
      2,
    ),
    failures: Math.max(0, ...runs.map((f) => f.failures)),
  };
}

/** Each run's ratios to the floor of the same run, then their medians. */
export function medianRatios(rows: readonly LoadFigures[], floors: readonly LoadFigures[]): Ratios {
  const per = (pick: (f: LoadFigures) => number) =>
    round(median(rows.map((row, i) => pick(row) / pick(floors[i] as LoadFigures))), 2);
  return { p50: per((f) => f.p50), p99: per((f) => f.p99), throughput: per((f) => f.throughput) };
}

/**
 * Leads for the filtered list row: `count` inquiries ingested through the real handler, each a new
 * contact (so status `new`), and the body of the dedupe ingest the write row repeats.
 */
export async function seedHotPathLeads(fixture: BenchFixture, count: number): Promise<void> {
  const { expectStatus, invoke } = await import('./dynamo-costs.ts');
  for (let i = 0; i < count; i++) {
    const response = await invoke('ingestLead', fixture.apiKey, {
      body: ingestBody(`hot.path.${i}@example.com`, `Hot Path ${i}`),
    });
    expectStatus(response, 201, `hot-path lead ${i}`);
  }
}

function ingestBody(email: string, name: string) {
  return {
    source: 'idealista',
    type: 'inquiry',
    person: { name, email, locale: 'es' },
    message: '¿Sigue disponible? Me gustaría visitarla el sábado.',
  };
}

/** The page origin the site row's publishable key allows and its requests come from. */
const SITE_PAGE = 'https://www.bench-realty.example';

/**
 * The origin secret the bench's API server is configured with (SITE_ORIGIN_SECRET): the site row's
 * requests come "through the distribution", as every site request does in AWS, with the viewer
 * address CloudFront reports (so admission reads it, as deployed).
 */
const SITE_ORIGIN_SECRET = 'bench-origin-secret-local-only';

/**
 * The API server's environment for the load section beside localHandlerEnv: the site budgets raised
 * like the secret API's (never the bottleneck), and the origin secret of a deployed site route.
 */
export const HOT_PATH_SERVER_ENV: Record<string, string> = {
  SITE_RATE_LIMIT_IP_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
  SITE_RATE_LIMIT_NETWORK_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
  SITE_RATE_LIMIT_TENANT_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
  SITE_ORIGIN_SECRET,
};

/** Listings of the bench Tenant besides the fixture's, so that the site search row pages over a catalogue. */
const SITE_LISTINGS = 23;

/**
 * The site row's data: `SITE_LISTINGS` more listings through the real handler, and a publishable
 * key for {@link SITE_PAGE}. Returns the key.
 */
export async function seedHotPathSite(fixture: BenchFixture): Promise<string> {
  const { expectStatus, invoke } = await import('./dynamo-costs.ts');
  const { issueSiteKey } = await import('../../functions/services/site-keys.ts');
  for (let i = 0; i < SITE_LISTINGS; i++) {
    const response = await invoke('createProperty', fixture.apiKey, {
      body: {
        title: `Bench listing ${i + 1}`,
        listing_type: i % 3 === 0 ? 'rent' : 'sale',
        price: String(150_000 + i * 25_000),
        currency: 'EUR',
        place_code: 'ES-MA-MAR',
      },
    });
    expectStatus(response, 201, `site listing ${i + 1}`);
  }
  const { key } = await issueSiteKey({ tenantId: fixture.tenantId, origins: SITE_PAGE });
  return key;
}

/**
 * The rows: the listing read (targeted), a filtered Lead page, a deduplicating ingest, and the site
 * search a page makes (publishable key and origin in the query, the browser's Origin header, and the
 * headers CloudFront adds).
 */
export function hotPathCases(fixture: BenchFixture, siteKey: string): HotPathCase[] {
  const auth = { authorization: `Bearer ${fixture.apiKey}` };
  const siteQuery = new URLSearchParams({ key: siteKey, origin: SITE_PAGE, limit: '12' });
  return [
    {
      label: 'GET /v1/properties/{id}',
      operationId: 'getProperty',
      path: `/v1/properties/${fixture.propertyId}`,
      request: { headers: auth },
      targeted: true,
    },
    {
      label: 'GET /v1/leads?status=new&limit=25',
      operationId: 'listLeads',
      path: '/v1/leads?status=new&limit=25',
      request: { headers: auth },
      targeted: false,
    },
    {
      label: 'POST /v1/leads:ingest (dedupe)',
      operationId: 'ingestLead',
      path: '/v1/leads:ingest',
      request: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(ingestBody('hot.path.0@example.com', 'Hot Path 0')),
      },
      targeted: false,
    },
    {
      label: 'GET /v1/site/properties (publishable key)',
      operationId: 'searchSiteProperties',
      path: `/v1/site/properties?${siteQuery}`,
      request: {
        headers: {
          origin: SITE_PAGE,
          // ORIGIN_VERIFY_HEADER of functions/api/middleware/site-access.ts, spelled out: report.ts
          // imports this module before the environment is set, so it pulls in no functions/ module.
          'x-origin-verify': SITE_ORIGIN_SECRET,
          'cloudfront-viewer-address': '203.0.113.7:50123',
        },
      },
      targeted: false,
    },
  ];
}

export interface HotPathOptions {
  dynamoEndpoint: string;
  tableName: string;
  fixture: BenchFixture;
  cases: HotPathCase[];
  load: LoadOptions;
  runs: number;
  cpuRequests: number;
  /** Node options for the API server process, e.g. `--cpu-prof --cpu-prof-dir=…`. */
  serverNodeOptions?: string[];
  loadAverages: () => number[];
  log: (line: string) => void;
}

export async function measureHotPath(o: HotPathOptions): Promise<HotPathSection> {
  const loadAtStart = o.loadAverages();
  const started: ApiServer[] = [];
  const floorScript = resolve(import.meta.dirname, 'floor/http-server.ts');
  const floorEnv = {
    BENCH_FLOOR_ENDPOINT: o.dynamoEndpoint,
    BENCH_FLOOR_TABLE: o.tableName,
    BENCH_FLOOR_KEY: JSON.stringify(o.fixture.propertyKey),
  };
  try {
    const floorServer = await startChildServer(floorScript, { ...floorEnv, BENCH_FLOOR_RATE_LIMIT: '0' });
    started.push(floorServer);
    const equalServer = await startChildServer(floorScript, { ...floorEnv, BENCH_FLOOR_RATE_LIMIT: '1' });
    started.push(equalServer);
    const service = await startServerProcess(
      o.dynamoEndpoint,
      o.serverNodeOptions ?? [],
      HOT_PATH_SERVER_ENV,
    );
    started.push(service);
    const floorRequest: LoadRequest = { headers: {} };
    const warm = { connections: o.load.connections, durationSeconds: 2 };

    // Loads the handler modules, caches the key and warms the JIT before anything is counted.
    o.log('  warm-up: both floors and every row, 2 s each…');
    await hammer(floorServer.url, floorRequest, warm);
    await hammer(equalServer.url, floorRequest, warm);
    for (const c of o.cases) await hammer(service.url + c.path, c.request, warm);

    o.log(`  CPU per request: ${o.cpuRequests} sequential requests each…`);
    const floorCpu = await cpuPerRequest(floorServer, floorServer.url, floorRequest, o.cpuRequests);
    const equalCpu = await cpuPerRequest(equalServer, equalServer.url, floorRequest, o.cpuRequests);
    const cpu: number[] = [];
    for (const c of o.cases)
      cpu.push(await cpuPerRequest(service, service.url + c.path, c.request, o.cpuRequests));

    const floorRuns: LoadFigures[] = [];
    const equalRuns: LoadFigures[] = [];
    const caseRuns: LoadFigures[][] = o.cases.map(() => []);
    const report = (run: number, label: string, f: LoadFigures) =>
      o.log(
        `  run ${run}/${o.runs} ${label}: ${f.throughput} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms${f.failures ? `, ${f.failures} failures` : ''}`,
      );
    for (let run = 1; run <= o.runs; run++) {
      const floor = await hammer(floorServer.url, floorRequest, o.load);
      floorRuns.push(floor);
      report(run, 'floor', floor);
      const equal = await hammer(equalServer.url, floorRequest, o.load);
      equalRuns.push(equal);
      report(run, 'equal-work floor', equal);
      for (const [i, c] of o.cases.entries()) {
        const figures = await hammer(service.url + c.path, c.request, o.load);
        caseRuns[i]?.push(figures);
        report(run, c.label, figures);
      }
    }
    for (const server of started.splice(0).reverse()) await server.stop();

    o.log('  raw DynamoDB loops (no HTTP): GetItem; rate-limit UpdateItem then GetItem…');
    const raw = {
      getItem: await dynamoFloor(o.dynamoEndpoint, o.tableName, o.fixture.propertyKey, {
        ...o.load,
        rateLimitWrite: false,
      }),
      rateLimitUpdateThenGet: await dynamoFloor(o.dynamoEndpoint, o.tableName, o.fixture.propertyKey, {
        ...o.load,
        rateLimitWrite: true,
      }),
    };

    const rows = o.cases.map((c, i): HotPathRow => {
      const runs = caseRuns[i] ?? [];
      const ratios = medianRatios(runs, floorRuns);
      const cpuMicros = cpu[i] ?? Number.NaN;
      return {
        label: c.label,
        operationId: c.operationId,
        figures: medianFigures(runs),
        ratios,
        equalWorkRatios: medianRatios(runs, equalRuns),
        runs,
        cpuMicros,
        cpuRatio: round(cpuMicros / floorCpu, 2),
        equalWorkCpuRatio: round(cpuMicros / equalCpu, 2),
        ...(c.targeted
          ? {
              meetsTargets:
                ratios.p50 <= HOT_PATH_TARGETS.p50RatioMax &&
                ratios.throughput >= HOT_PATH_TARGETS.throughputRatioMin,
            }
          : {}),
      };
    });
    return {
      connections: o.load.connections,
      durationSeconds: o.load.durationSeconds,
      runs: o.runs,
      cpuRequests: o.cpuRequests,
      authCacheTtlSeconds: 60,
      loadAverage: { start: loadAtStart, end: o.loadAverages() },
      floor: {
        label: 'floor: node:http + one GetItem (SDK DocumentClient)',
        figures: medianFigures(floorRuns),
        runs: floorRuns,
        cpuMicros: floorCpu,
      },
      equalWorkFloor: {
        label: 'equal-work floor: node:http + GetItem ‖ rate-limit UpdateItem',
        figures: medianFigures(equalRuns),
        runs: equalRuns,
        cpuMicros: equalCpu,
        toFloor: { ratios: medianRatios(equalRuns, floorRuns), cpuRatio: round(equalCpu / floorCpu, 2) },
      },
      rows,
      raw,
    };
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
}
