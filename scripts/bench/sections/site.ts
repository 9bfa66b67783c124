/**
 * Site search at scale (`--only site --listings 50000`): a Tenant of N live listings (data.ts, beside
 * 5 % archived and 2 % drafts) written in bulk, its catalogue snapshot built as the rebuilder keeps
 * it, then `GET /v1/site/properties` through the real handler, warm, the edge cache missed: DynamoDB
 * round trips (sequential after the rate-limit write), units, p50/p90, CPU; the cold catalogue load
 * of a fresh container; a Lead's matches on the same catalogue, warm and cold.
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { listingStatus } from '../../../functions/domain/listing.ts';
import { benchClient, bulkWriter, itemBuilder } from '../bulk.ts';
import { defineSection } from '../context.ts';
import { demoPlaces, listingAt } from '../data.ts';
import {
  type CostCase,
  type CostResult,
  invoke,
  measureCase,
  seedTenant,
  siteRequest,
} from '../dynamo-costs.ts';
import type { RecordedCall } from '../dynamo-recorder.ts';
import { BENCH_TABLE, startLocalStores } from '../env.ts';
import { fixed, mark, round, table } from '../stats.ts';
import { SEARCHES } from './search.ts';

/** Warm, the edge cache missed; Lead matches on the same catalogue. */
export const SITE_TARGETS = { afterRateLimit: 1, readUnits: 1, p50Ms: 25 } as const;
export const MATCHES_TARGETS = { readUnits: 5, warmP50Ms: 100, coldP50Ms: 1000 } as const;

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
    const writer = bulkWriter(benchClient(endpoint), BENCH_TABLE, 4);
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
    const { body } = await invoke('listSiteLocations', '', get({}));
    const marbella = (JSON.parse(body ?? '{}') as { items: { slug: string; name: string }[] }).items.find(
      (p) => p.name === 'Marbella',
    );
    const rows: CostResult[] = [];
    for (const { label, query } of SEARCHES) {
      const q = query.location ? { ...query, location: marbella?.slug ?? '' } : query;
      rows.push(await measure({ label, operationId: 'searchSiteProperties', request: () => get(q) }));
    }
    // A site GET that searches nothing: admission, the rate-limit writes and the pipeline apart.
    rows.push(
      await measure({
        label: 'floor: GET /v1/site/amenities',
        operationId: 'listSiteAmenities',
        request: () => get({}),
      }),
    );
    const search = { operationId: 'searchSiteProperties' as const, request: () => get({}) };
    rows.push(
      await measure({ ...search, label: 'cold: a fresh container’s first search (one S3 GET)' }, true),
    );
    const email = `buyer-${randomUUID().slice(0, 8)}@bench.example`;
    const lead = await invoke('createLead', t.apiKey, { body: { name: 'Bench Buyer', email } });
    const onLead = { lead_id: (JSON.parse(lead.body ?? '{}') as { id: string }).id };
    const criteria = { listing_type: 'sale', place_codes: ['ES-MA-MAR'] };
    await invoke('putLeadCriteria', t.apiKey, { pathParameters: onLead, body: criteria });
    const matches = { operationId: 'listLeadMatches' as const, request: () => ({ pathParameters: onLead }) };
    const matched = [
      await measure({ ...matches, label: 'Lead matches, warm' }),
      await measure({ ...matches, label: 'Lead matches, cold' }, true),
    ];
    await stopStores();
    return { seed, snapshot, samples, rows, matches: matched };
  },
  render({ seed, snapshot, samples, rows, matches }) {
    const { afterRateLimit: after, readUnits: rcu, p50Ms } = SITE_TARGETS;
    const m = MATCHES_TARGETS;
    const line = (r: CostResult, targets: string) => [
      ...[
        r.label,
        r.itemsReturned ?? '-',
        r.roundTrips,
        r.sequentialRoundTrips,
        r.afterMarked,
        r.readUnits,
        r.writeUnits,
      ],
      ...[r.queryItemsRead, fixed(r.latencyMs, 2), fixed(r.p90Ms, 2), fixed(r.cpuMs, 2), targets],
    ];
    const searched = (r: CostResult) =>
      `${mark(r.afterMarked <= after)} seq; ${mark(r.readUnits <= rcu)} RCU; ${mark(r.latencyMs <= p50Ms)} p50`;
    const matched = (r: CostResult, p50: number) =>
      `${mark(r.readUnits <= m.readUnits)} RCU; ${mark(r.latencyMs <= p50)} p50`;
    const [warm, cold] = matches as [CostResult, CostResult];
    return [
      `${seed.live} live listings (${seed.archived} archived, ${seed.draft} drafts) written in ${seed.written.seconds} s (${seed.written.itemsPerSecond} items/s); the snapshot ${snapshot.bytes} B gzipped, built in ${snapshot.buildMs} ms. Median of ${samples} requests after a warm-up (cold: of 3). Targets, warm: ≤ ${after} sequential round trip after the rate-limit write, ≤ ${rcu} RCU, p50 ≤ ${p50Ms} ms; matches ≤ ${m.readUnits} RCU, p50 ≤ ${m.warmP50Ms} ms warm, ${m.coldP50Ms} ms cold.`,
      '',
      ...table(
        [
          'request',
          'hits',
          'RT',
          'seq',
          'seq after RL',
          'RCU',
          'WCU',
          'items read',
          'p50 ms',
          'p90 ms',
          'CPU ms',
          'targets',
        ],
        [
          ...rows.map((r, i) => line(r, i < SEARCHES.length ? searched(r) : 'context')),
          line(warm, matched(warm, m.warmP50Ms)),
          line(cold, matched(cold, m.coldP50Ms)),
        ],
      ),
    ];
  },
});
