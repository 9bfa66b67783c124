/**
 * Site search in memory, no DynamoDB: a Tenant's generated catalogue (data.ts, 50,000 live
 * listings unless `--listings` says otherwise) held as a warm site function holds it, then each
 * search of the site section run by tinybench on it (services/site.ts `searchCatalogue`: the search
 * columns and word index of services/site-search-index.ts). Also what a change costs the next
 * search: the catalogue's search columns rebuilt.
 */
import { Bench } from 'tinybench';
import { listingStatus } from '../../../functions/domain/listing.ts';
import type { SiteSearch } from '../../../functions/services/site.ts';
import { defineSection } from '../context.ts';
import { demoPlaces, listingAt } from '../data.ts';
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
    const { emptyCatalogue, applyListings, locationsOf } = await import(
      '../../../functions/services/site-catalogue.ts'
    );
    const { searchCatalogue } = await import('../../../functions/services/site.ts');
    const live = ctx.num('listings', 50_000);
    const o = {
      tenantId: '5e5e5e5e-0000-4000-8000-000000000000',
      agentIds: ['a1', 'a2'],
      places: demoPlaces(),
    };
    const records = [];
    for (let i = 0; records.length < live; i++) {
      const record = listingAt(i, o);
      if (listingStatus(record) === 'live') records.push(record);
    }
    const catalogue = emptyCatalogue(o.tenantId);
    let started = performance.now();
    applyListings(catalogue, records as never);
    const loadMs = round(performance.now() - started);
    const marbella = locationsOf(catalogue).find((l) => l.name === 'Marbella')?.slug;
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
      ...table(
        ['search', 'hits', 'p50 ms', 'p99 ms', 'samples'],
        rows.map((r) => [r.label, r.hits, fixed(r.p50Ms, 3), fixed(r.p99Ms, 3), r.samples]),
      ),
    ];
  },
});
