/**
 * Site search (docs/bench.md): in memory, no DynamoDB, timed by tinybench (`search`); and at scale
 * through the real handler, warm and in a fresh container, with a Lead's matches (`site`).
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Bench } from 'tinybench';
import { listingStatus } from '../../../functions/domain/listing.ts';
import type { SiteSearch } from '../../../functions/services/site.ts';
import { bulkWriter, itemBuilder } from '../bulk.ts';
import { defineSection } from '../context.ts';
import { demoPlaces, listingAt } from '../data.ts';
import {
  type Bounds,
  COST_COLUMNS as C,
  type CostCase,
  type CostResult,
  measureCase,
  seedTenant,
  siteRequest,
  succeed,
} from '../dynamo-costs.ts';
import type { RecordedCall } from '../dynamo-recorder.ts';
import { startLocalStores } from '../env.ts';
import { fixed, median, round, table } from '../stats.ts';

/** The site section's searches (its `location` row reads Marbella's slug from the catalogue). */
export const SEARCHES: { label: string; query: Partial<SiteSearch> }[] = [
  { label: 'first page (newest)', query: {} },
  { label: 'sale, 2+ beds, cheapest first', query: { listing: 'sale', beds: 2, sort: 'price_asc' } },
  {
    label: 'rent, 1,000–3,000, pool and terrace',
    query: { listing: 'rent', min_price: '1000', max_price: '3000', amenities: ['pool', 'terrace'] },
  },
  { label: 'q=sea views', query: { q: 'sea views' } },
  { label: 'location=marbella, dearest first', query: { location: 'marbella', sort: 'price_desc' } },
  { label: 'page 5 (offset 48)', query: { offset: 48 } },
];

export const search = defineSection({
  name: 'search',
  about: 'site search on a 50,000-listing catalogue in memory (tinybench), no DynamoDB',
  async run(ctx) {
    const catalogues = await import('../../../functions/services/site-catalogue.ts');
    const { searchCatalogue } = await import('../../../functions/services/site.ts');
    const live = ctx.num('listings', 50_000);
    const tenantId = '5e5e5e5e-0000-4000-8000-000000000000';
    const o = { tenantId, agentIds: ['a1', 'a2'], places: demoPlaces() };
    const records = [];
    for (let i = 0; records.length < live; i++) {
      const record = listingAt(i, o);
      if (listingStatus(record) === 'live') records.push(record);
    }
    const catalogue = catalogues.emptyCatalogue(o.tenantId);
    let started = performance.now();
    catalogues.applyListings(catalogue, records as never);
    const loadMs = round(performance.now() - started);
    const marbella = catalogues.locationsOf(catalogue).find((l) => l.name === 'Marbella')?.slug;
    const page = { sort: 'newest' as const, limit: 12, offset: 0 };
    const run = (q: Partial<SiteSearch>) =>
      searchCatalogue(catalogue, { ...page, ...q, ...(q.location && { location: marbella }) });
    // What the next search after a change pays: the columns built again (medians of 5).
    const rebuilds = Array.from({ length: 5 }, () => {
      catalogue.columns = undefined;
      started = performance.now();
      run({});
      return performance.now() - started;
    });
    const bench = new Bench({ time: 1000, warmup: true });
    for (const s of SEARCHES) bench.add(s.label, () => void run(s.query));
    await bench.run();
    const rows = SEARCHES.map((s, i) => {
      const result = bench.tasks[i]?.result;
      const latency = result && 'latency' in result ? result.latency : undefined;
      const [p50Ms, p99Ms] = [round(latency?.p50 ?? NaN, 3), round(latency?.p99 ?? NaN, 3)];
      return { label: s.label, hits: run(s.query).total, p50Ms, p99Ms, samples: latency?.samplesCount ?? 0 };
    });
    return { listings: live, loadMs, columnsRebuildMs: round(median(rebuilds)), rows };
  },
  render({ listings, loadMs, columnsRebuildMs, rows }) {
    return [
      `${listings.toLocaleString('en')} live listings held in memory (applied in ${fixed(loadMs, 0)} ms); a change's next search rebuilds the search columns: ${fixed(columnsRebuildMs)} ms. Each search 12 a page, timed by tinybench for 1 s after a warm-up.`,
      '',
      ...table<(typeof rows)[number]>(
        [
          ['search', (r) => r.label],
          ['hits', (r) => r.hits],
          ['p50 ms', (r) => fixed(r.p50Ms, 3)],
          ['p99 ms', (r) => fixed(r.p99Ms, 3)],
          ['samples', (r) => r.samples],
        ],
        rows,
      ),
    ];
  },
});

/** Warm, edge missed: ≤ 1 sequential round trip after the rate-limit write, ≤ 1 RCU, p50 ≤ 25 ms. */
export const SITE_BOUNDS: Bounds = { afterMarked: 1, rcu: 1, ms: 25 };
/** A Lead's matches on the same catalogue, warm and cold. */
export const MATCHES_BOUNDS: Record<'warm' | 'cold', Bounds> = {
  warm: { rcu: 5, ms: 100 },
  cold: { rcu: 5, ms: 1000 },
};

/** The site budgets' counters: UpdateItems of the site rate-limit window items. */
export function isRateLimitWrite(call: RecordedCall): boolean {
  const e = (call.input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':e'];
  return call.operation === 'UpdateItem' && [e, (e as { S?: string })?.S].includes('siteRateWindow');
}

export const site = defineSection({
  name: 'site',
  about: 'a Tenant of --listings live listings: site searches warm and cold, a Lead’s matches',
  optIn: true,
  async run(ctx) {
    const { endpoint } = await ctx.service();
    const t = await seedTenant('site');
    const { Listing } = await import('../../../functions/data/entities/listing.ts');
    const claim = itemBuilder((await import('../../../functions/data/entities/unique-claim.ts')).UniqueClaim);
    const writer = bulkWriter(endpoint, 4);
    const [counts, places] = [{ live: 0, archived: 0, draft: 0 }, demoPlaces()];
    for (let i = 0; counts.live < ctx.num('listings', 5000); i++) {
      const l = listingAt(i, { ...t, places });
      counts[listingStatus(l)] += 1;
      const item = Listing.put(l as never).params<{ Item: Record<string, unknown> }>().Item;
      const slug = { scope: `t#${t.tenantId}`, kind: 'property-slug', value: l.slug, ownerId: l.id };
      await writer.put(item, claim({ ...slug, createdAt: l.createdAt }));
    }
    const seed = { ...counts, written: await writer.done() };
    ctx.log(`  seeded ${seed.written.items} items in ${seed.written.seconds} s`);
    // The Tenant's snapshot, as the rebuilder keeps it: without one, a fresh container reads the
    // whole listing index (at 50,000 listings, past the function's time limit).
    const stopStores = await startLocalStores();
    ctx.onStop(stopStores);
    const { rebuildCatalogueSnapshot } = await import('../../../functions/services/catalogue-rebuild.ts');
    const started = performance.now();
    const { storedBytes } = await rebuildCatalogueSnapshot(t.tenantId, { fromTable: true });
    const snapshot = { bytes: storedBytes, buildMs: round(performance.now() - started, 0) };
    // The seeding's and the build's garbage, which a deployed site function never has, collected now.
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();

    const { clearSiteCatalogues } = await import('../../../functions/services/site-catalogue.ts');
    const { clearSiteKeyCache } = await import('../../../functions/pipeline/middleware/site-access.ts');
    const { clearAuthCache } = await import('../../../functions/pipeline/middleware/authenticate.ts');
    // A fresh container: catalogues and keys forgotten; it reads the snapshot, then catches up.
    const cold = () => {
      for (const clear of [clearSiteCatalogues, clearSiteKeyCache, clearAuthCache]) clear();
    };
    const samples = Math.max(ctx.num('samples'), 30);
    const measure = (c: Omit<CostCase, 'status'>, fresh = false) =>
      measureCase(
        { status: 200, mark: isRateLimitWrite, ...c, ...(fresh && { cold }) },
        t.apiKey,
        fresh ? 3 : samples,
      );
    const get = (query: Record<string, unknown>) =>
      siteRequest(t.siteKey, {
        query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
      });
    type Location = { slug: string; name: string };
    const { items } = (await succeed('listSiteLocations', '', get({}))) as { items?: Location[] };
    const marbella = items?.find((p) => p.name === 'Marbella')?.slug ?? '';
    const rows: CostResult[] = [];
    for (const { label, query } of SEARCHES) {
      const q = query.location ? { ...query, location: marbella } : query;
      const request = () => get(q);
      rows.push(await measure({ label, operationId: 'searchSiteProperties', request, bounds: SITE_BOUNDS }));
    }
    const label = 'cold: a fresh container’s first search (one S3 GET)';
    rows.push(await measure({ label, operationId: 'searchSiteProperties', request: () => get({}) }, true));
    const email = `buyer-${randomUUID().slice(0, 8)}@bench.example`;
    const lead = await succeed('createLead', t.apiKey, { body: { name: 'Bench Buyer', email } });
    const onLead = { pathParameters: { lead_id: lead.id } };
    const criteria = { listing_type: 'sale', place_codes: ['ES-MA-MAR'] };
    await succeed('putLeadCriteria', t.apiKey, { ...onLead, body: criteria });
    for (const [when, bounds] of Object.entries(MATCHES_BOUNDS)) {
      const matches = { operationId: 'listLeadMatches' as const, request: () => onLead, bounds };
      rows.push(await measure({ ...matches, label: `Lead matches, ${when}` }, when === 'cold'));
    }
    await stopStores();
    return { seed, snapshot, samples, rows };
  },
  render({ seed, snapshot, samples, rows }) {
    const columns = [C.hits, C.rt, C.seq, C.afterMarked, C.rcu, C.wcu, C.read, C.ms, C.p90, C.cpu, C.checks];
    return [
      `${seed.live} live listings (${seed.archived} archived, ${seed.draft} drafts) written in ${seed.written.seconds} s (${seed.written.itemsPerSecond} items/s); the snapshot ${snapshot.bytes} B gzipped, built in ${snapshot.buildMs} ms. Median of ${samples} requests after a warm-up (cold: of 3).`,
      '',
      ...table([['request', (r) => r.label], ...columns], rows),
    ];
  },
});
