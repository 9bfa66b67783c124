/**
 * The hot paths under load against a fair floor: a bare `node:http` server answering each request
 * with one GetItem of the same listing through the same SDK client (floor/http-server.ts), and the
 * local API server (api-server.ts), each in a process of its own, driven by the same autocannon
 * settings. Each run loads the floor, then every row; each row's ratios are to the floor of its own
 * run, reported as medians over the runs. Target (`GET /v1/properties/{id}`): p50 ≤ 1.5× and
 * throughput ≥ 0.6× the floor's.
 */
import autocannon from 'autocannon';
import { startChild } from '../child.ts';
import { defineSection } from '../context.ts';
import { expectStatus, invoke, SITE_PAGE } from '../dynamo-costs.ts';
import { localHandlerEnv } from '../env.ts';
import { fixed, mark, median, round, summarize, table, times } from '../stats.ts';

export const HOT_PATH_TARGETS = { p50RatioMax: 1.5, throughputRatioMin: 0.6 } as const;

export interface LoadFigures {
  requests: number;
  /** Completed requests a second over the run. */
  throughput: number;
  p50: number;
  p99: number;
  /** Non-2xx answers or connection errors: a run with any is not a valid measurement. */
  failures: number;
}
type LoadRequest = { headers: Record<string, string> };

/** Median of every figure over the runs (failures: the most of any run). */
export function medianFigures(runs: readonly LoadFigures[]): LoadFigures {
  const of = (pick: (f: LoadFigures) => number, digits = 2) => round(median(runs.map(pick)), digits);
  const [requests, throughput, p50, p99] = [
    of((f) => f.requests, 0),
    of((f) => f.throughput, 0),
    of((f) => f.p50),
    of((f) => f.p99),
  ];
  return { requests, throughput, p50, p99, failures: Math.max(0, ...runs.map((f) => f.failures)) };
}

/** Each run's ratios to the floor of the same run, then their medians. */
export function medianRatios(rows: readonly LoadFigures[], floors: readonly LoadFigures[]) {
  const per = (pick: (f: LoadFigures) => number) =>
    round(median(rows.map((row, i) => pick(row) / pick(floors[i] as LoadFigures))), 2);
  return { p50: per((f) => f.p50), p99: per((f) => f.p99), throughput: per((f) => f.throughput) };
}

/**
 * Autocannon against one URL. Latencies come from its per-response event (fractions of a ms)
 * rather than its histogram of whole milliseconds, too coarse for a 2–5 ms request.
 */
async function hammer(url: string, request: LoadRequest, duration: number, connections: number) {
  const latencies: number[] = [];
  let failures = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    // The callback form returns the instance (the promise form does not), which the listener needs.
    const options = { url, ...request, connections, duration };
    const instance = autocannon(options, (error: unknown, end: autocannon.Result) =>
      error ? fail(error) : done(end),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else failures += 1;
    });
  });
  const { count: requests, median: p50, p99 } = summarize(latencies);
  const throughput = round(requests / result.duration, 0);
  return {
    requests,
    throughput,
    p50: round(p50, 2),
    p99: round(p99, 2),
    failures: failures + result.errors,
  } as LoadFigures;
}

/** The origin secret the service runs with: the site row's requests come through the distribution. */
const SECRET = 'bench-origin-secret-local-only';

export const load = defineSection({
  name: 'load',
  about: 'the hot paths under autocannon, against a node:http + GetItem floor',
  async run(ctx) {
    const { endpoint, fixture } = await ctx.service();
    const [connections, duration, runs] = [ctx.num('connections'), ctx.num('duration'), ctx.num('load-runs')];
    // 23 more listings, for the site search to page over.
    const listing = { listing_type: 'sale', currency: 'EUR', place_code: 'ES-MA-MAR' };
    for (let i = 0; i < 23; i++) {
      const body = { ...listing, title: `Bench ${i}`, price: String(1e5 + i * 1e4) };
      expectStatus(await invoke('createProperty', fixture.apiKey, { body }), 201, 'listing');
    }
    const site = new URLSearchParams({ key: fixture.siteKey, origin: SITE_PAGE, limit: '12' });
    // Through the distribution: the page's Origin, and what CloudFront adds (the secret, the viewer).
    const viewer = {
      origin: SITE_PAGE,
      'x-origin-verify': SECRET,
      'cloudfront-viewer-address': '203.0.113.7:5',
    };
    const rows = [
      [
        'getProperty',
        `GET /v1/properties/${fixture.propertyId}`,
        { authorization: `Bearer ${fixture.apiKey}` },
      ],
      ['searchSiteProperties', `GET /v1/site/properties?${site}`, viewer],
    ] as const;
    const only = ctx.text('load-rows')?.split(',');
    const picked = rows.filter(([id]) => !only || only.includes(id));
    const floorServer = startChild<{ url: string }>('floor/http-server.ts', {
      endpoint,
      key: fixture.propertyKey,
    });
    const service = startChild<{ url: string }>('api-server.ts', {
      ...localHandlerEnv(endpoint),
      SITE_ORIGIN_SECRET: SECRET,
    });
    try {
      const [floor, api] = [(await floorServer.first).url, (await service.first).url];
      const url = (line: string) => api + line.slice(line.indexOf(' ') + 1);
      // Handler modules loaded, the key cached and the JIT warm before anything counts.
      await hammer(floor, { headers: {} }, 2, connections);
      for (const [, line, headers] of picked) await hammer(url(line), { headers }, 2, connections);
      const floorRuns: LoadFigures[] = [];
      const rowRuns: LoadFigures[][] = picked.map(() => []);
      for (let run = 1; run <= runs; run++) {
        floorRuns.push(await hammer(floor, { headers: {} }, duration, connections));
        for (const [i, [, line, headers]] of picked.entries())
          rowRuns[i]?.push(await hammer(url(line), { headers }, duration, connections));
        ctx.log(
          `  run ${run}/${runs}: ${[floorRuns, ...rowRuns].map((f) => f.at(-1)?.throughput).join(', ')} req/s`,
        );
      }
      const results = picked.map(([id, line], i) => {
        const ratios = medianRatios(rowRuns[i] ?? [], floorRuns);
        const { p50RatioMax, throughputRatioMin } = HOT_PATH_TARGETS;
        const ok = ratios.p50 <= p50RatioMax && ratios.throughput >= throughputRatioMin;
        const label = line.replace(fixture.propertyId, '{id}').replace(/key=.*/, 'key=…');
        return {
          label,
          figures: medianFigures(rowRuns[i] ?? []),
          ratios,
          ...(id === 'getProperty' && { ok }),
        };
      });
      return { connections, duration, runs, floor: medianFigures(floorRuns), rows: results };
    } finally {
      await Promise.all([floorServer.stop(), service.stop()]);
    }
  },
  render({ connections, duration, runs, floor, rows }) {
    const cells = (f: LoadFigures) => [fixed(f.throughput, 0), fixed(f.p50, 2), fixed(f.p99, 2), f.failures];
    const { p50RatioMax, throughputRatioMin } = HOT_PATH_TARGETS;
    return [
      `${connections} connections × ${duration} s, medians of ${runs} runs; ratios to the floor of the same run.`,
      '',
      ...table(
        ['', 'req/s', 'p50 ms', 'p99 ms', 'failed', 'p50 ×', 'p99 ×', 'req/s ×', 'target'],
        [
          ['floor: node:http + one GetItem', ...cells(floor), '1.00×', '1.00×', '1.00×', ''],
          ...rows.map((r) => {
            const { p50, p99, throughput } = r.ratios;
            return [
              r.label,
              ...cells(r.figures),
              times(p50),
              times(p99),
              times(throughput),
              'ok' in r ? mark(r.ok ?? false) : '',
            ];
          }),
        ],
      ),
      '',
      `Target (GET /v1/properties/{id}): p50 ≤ ${times(p50RatioMax)} and throughput ≥ ${times(throughputRatioMin)} the floor's.`,
    ];
  },
});
