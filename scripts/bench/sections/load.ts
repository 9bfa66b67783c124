/**
 * The hot paths under autocannon against a fair floor (docs/bench.md, load): a bare `node:http`
 * server with one GetItem of the same listing through the same SDK client. Each row's ratios are to
 * the floor of its own run (the machine's load moves both alike), then the medians over the runs.
 */
import autocannon from 'autocannon';
import { startChild } from '../child.ts';
import { defineSection } from '../context.ts';
import { liveListing, SITE_PAGE } from '../dynamo-costs.ts';
import { localHandlerEnv } from '../env.ts';
import { fixed, mark, median, round, summarize, table, times } from '../stats.ts';

/** `GET /v1/properties/{id}`: p50 ≤ 1.5× and throughput ≥ 0.6× the floor's. */
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

/** Median of every figure over the runs (failures: the most of any run). */
export function medianFigures(runs: readonly LoadFigures[]): LoadFigures {
  const of = (key: keyof LoadFigures) => round(median(runs.map((f) => f[key])), 2);
  const failures = Math.max(0, ...runs.map((f) => f.failures));
  return { requests: of('requests'), throughput: of('throughput'), p50: of('p50'), p99: of('p99'), failures };
}

/** Each run's ratios to the floor of the same run, then their medians. */
export function medianRatios(rows: readonly LoadFigures[], floors: readonly LoadFigures[]) {
  const per = (key: keyof LoadFigures) =>
    round(median(rows.map((row, i) => row[key] / (floors[i] as LoadFigures)[key])), 2);
  return { p50: per('p50'), p99: per('p99'), throughput: per('throughput') };
}

/**
 * Autocannon against one URL. Latencies come from its per-response event (fractions of a ms)
 * rather than its histogram of whole milliseconds, too coarse for a 2–5 ms request.
 */
async function hammer(url: string, headers: Record<string, string>, duration: number, connections: number) {
  const latencies: number[] = [];
  let failures = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    // The callback form returns the instance (the promise form does not), which the listener needs.
    const instance = autocannon({ url, headers, connections, duration }, (error, end) =>
      error ? fail(error) : done(end),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else failures += 1;
    });
  });
  const { count: requests, median: p50, p99 } = summarize(latencies);
  const throughput = round(requests / result.duration, 0);
  return { requests, throughput, p50: round(p50, 2), p99: round(p99, 2), failures: failures + result.errors };
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
    for (let i = 0; i < 23; i++) await liveListing(fixture.apiKey, `Bench ${i}`, 1e5 + i * 1e4);
    const site = new URLSearchParams({ key: fixture.siteKey, origin: SITE_PAGE, limit: '12' });
    // Through the distribution: the page's Origin, and what CloudFront adds (the secret, the viewer).
    const viewer = {
      origin: SITE_PAGE,
      'x-origin-verify': SECRET,
      'cloudfront-viewer-address': '203.0.113.7:5',
    };
    const only = ctx.text('load-rows')?.split(',');
    // The floor first in every run, then each row: its ratios are to the floor of the same run.
    const every: [id: string, label: string, path: string, headers: Record<string, string>][] = [
      ['floor', 'floor: node:http + one GetItem', '', {}],
      [
        'getProperty',
        'GET /v1/properties/{id}',
        `/v1/properties/${fixture.propertyId}`,
        { authorization: `Bearer ${fixture.apiKey}` },
      ],
      ['searchSiteProperties', 'GET /v1/site/properties?key=…', `/v1/site/properties?${site}`, viewer],
    ];
    const rows = every.filter(([id]) => id === 'floor' || !only || only.includes(id));
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
      const send = ([id, , path, headers]: (typeof rows)[number], seconds: number) =>
        hammer(id === 'floor' ? floor : api + path, headers, seconds, connections);
      // Handler modules loaded, the key cached and the JIT warm before anything counts.
      for (const row of rows) await send(row, 2);
      const runsOf: LoadFigures[][] = rows.map(() => []);
      for (let run = 1; run <= runs; run++) {
        for (const [i, row] of rows.entries()) runsOf[i]?.push(await send(row, duration));
        ctx.log(`  run ${run}/${runs}: ${runsOf.map((f) => f.at(-1)?.throughput).join(', ')} req/s`);
      }
      const { p50RatioMax, throughputRatioMin } = HOT_PATH_TARGETS;
      const results = rows.map(([id, label], i) => {
        const ratios = medianRatios(runsOf[i] ?? [], runsOf[0] ?? []);
        const ok = ratios.p50 <= p50RatioMax && ratios.throughput >= throughputRatioMin;
        return {
          label,
          figures: medianFigures(runsOf[i] ?? []),
          ratios,
          target: id === 'getProperty' ? mark(ok) : '',
        };
      });
      return { connections, duration, runs, rows: results };
    } finally {
      await Promise.all([floorServer.stop(), service.stop()]);
    }
  },
  render({ connections, duration, runs, rows }) {
    return [
      `${connections} connections × ${duration} s, medians of ${runs} runs; ratios to the floor of the same run.`,
      '',
      ...table<(typeof rows)[number]>(
        [
          ['', (r) => r.label],
          ['req/s', (r) => fixed(r.figures.throughput, 0)],
          ['p50 ms', (r) => fixed(r.figures.p50, 2)],
          ['p99 ms', (r) => fixed(r.figures.p99, 2)],
          ['failed', (r) => r.figures.failures],
          ['p50 ×', (r) => times(r.ratios.p50)],
          ['p99 ×', (r) => times(r.ratios.p99)],
          ['req/s ×', (r) => times(r.ratios.throughput)],
          ['target', (r) => r.target],
        ],
        rows,
      ),
      '',
      `Target (GET /v1/properties/{id}): p50 ≤ ${times(HOT_PATH_TARGETS.p50RatioMax)} and throughput ≥ ${times(HOT_PATH_TARGETS.throughputRatioMin)} the floor's.`,
    ];
  },
});
