/**
 * DynamoDB units per operation and what a month costs (docs/bench.md, cost). Units per request do
 * not depend on the month's volume, so the small fixture Tenant is enough; what scales with the
 * listings (storage) is in the assumptions (cost-table.ts).
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { routeFor } from '../../../functions/routes.ts';
import { defineSection, loadAverages } from '../context.ts';
import {
  type MeasuredOperations,
  MIX_OPERATIONS,
  type MixOperation,
  monthlyCost,
  REFERENCE_AGENCY,
  REFERENCE_PORTAL,
  renderCostTable,
} from '../cost-table.ts';
import {
  type Bounds,
  COST_COLUMNS as C,
  type CostCase,
  type CostResult,
  invoke,
  liveListing,
  measureCase,
  siteRequest,
} from '../dynamo-costs.ts';
import { table } from '../stats.ts';

/** Every HTTP function's memory: ServiceFunction's default (lib/constructs/service-function.ts). */
const HTTP_FUNCTION_MEMORY_MB = 1024;
/** A GET ≤ 2 sequential round trips; `getProperty` ≤ 0.5 RCU and ≤ 1 WCU (its rate-limit write). */
const boundsOf = (op: MixOperation): Bounds => ({
  ...(routeFor(op).method === 'GET' && { seq: 2 }),
  ...(op === 'getProperty' && { rcu: 0.5, wcu: 1 }),
});

export const cost = defineSection({
  name: 'cost',
  about: "each operation of the month's mix through its handler (DynamoDB units, time), and a month's cost",
  async run(ctx) {
    const { fixture } = await ctx.service();
    const [samples, run, key] = [ctx.num('samples'), randomUUID().slice(0, 6), fixture.apiKey];
    const measuredOn = `${new Date().toISOString().slice(0, 10)}, load ${loadAverages().join(' / ')}`;
    const { id, slug } = await liveListing(key, `Bench cost villa ${run}`);
    // A view is counted once per visitor, listing and minute: each measured view is of a listing
    // this visitor has not viewed yet, as a page's view count is.
    const viewed: string[] = [];
    for (let i = 0; i <= samples + 1; i++)
      viewed.push((await liveListing(key, `Bench viewed ${run} ${i}`)).slug);
    const person = (i: number) => ({ name: `Cost Bench ${i}`, email: `cost.bench.${run}.${i}@example.com` });
    const [flat, inquiry] = [
      { listing_type: 'sale', price: '350000', currency: 'EUR' },
      { source: 'website', type: 'inquiry', message: '¿Sigue disponible?' },
    ];
    const site = (r = {}) => siteRequest(fixture.siteKey, r);
    const cases: Record<MixOperation, Pick<CostCase, 'status' | 'request'>> = {
      getProperty: { status: 200, request: () => ({ pathParameters: { property_id: id } }) },
      listProperties: { status: 200, request: () => ({}) },
      updateProperty: {
        status: 200,
        request: (i) => ({ pathParameters: { property_id: id }, body: { price: String(3e5 + i) } }),
      },
      createProperty: {
        status: 201,
        request: (i) => ({ body: { ...flat, title: `Bench cost flat ${run} ${i}` } }),
      },
      ingestLead: {
        status: 201,
        request: (i) => ({ body: { ...inquiry, person: { ...person(i), locale: 'es' } } }),
      },
      listLeads: { status: 200, request: () => ({ query: { limit: '25' } }) },
      searchSiteProperties: { status: 200, request: () => site({ query: { limit: '12' } }) },
      getSitePropertyBySlug: { status: 200, request: () => site({ pathParameters: { slug } }) },
      countSitePropertyView: {
        status: 204,
        request: (i) => site({ pathParameters: { slug: viewed[i] ?? slug } }),
      },
    };
    const rows: CostResult[] = [];
    const measured = {} as MeasuredOperations;
    for (const operationId of MIX_OPERATIONS) {
      const c = { ...cases[operationId], operationId, label: operationId, bounds: boundsOf(operationId) };
      const r = await measureCase(c, key, samples);
      // The site distribution compresses answers (gzip or Brotli): gzip, the larger, is what is priced.
      const { body } = await invoke(operationId, key, c.request(samples + 1));
      const [responseBytes, memoryMb] = [body ? gzipSync(body).length : 0, HTTP_FUNCTION_MEMORY_MB];
      const units = { readUnits: r.billedReadUnits, writeUnits: r.billedWriteUnits, lambdaMs: r.latencyMs };
      measured[operationId] = { ...units, memoryMb, responseBytes, messages: r.localPortWrites };
      rows.push(r);
    }
    const references = [REFERENCE_AGENCY, REFERENCE_PORTAL].map((ref) => ({
      ref,
      cost: monthlyCost(measured, ref),
    }));
    for (const { ref, cost } of references) {
      const perMinute = Math.round(cost.budgetedSiteRequestsPerMinute).toLocaleString('en-US');
      ctx.log(`  ${ref.name}: ${perMinute} site requests a minute spend the site budget on average`);
    }
    return { samples, rows, measured, references, table: renderCostTable(references, measuredOn) };
  },
  render({ samples, rows, table: costTable }) {
    const columns = [C.status, C.rt, C.seq, C.calls, C.rcu, C.wcu, C.billedRcu, C.billedWcu, C.messages];
    return [
      `Median of ${samples} requests after a warm-up; the columns: docs/bench.md, cost.`,
      '',
      ...table([['operation', (r) => r.label], ...columns, C.ms, C.checks], rows),
      '',
      ...costTable.split('\n'),
    ];
  },
});
