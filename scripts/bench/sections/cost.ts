/**
 * DynamoDB units per operation and what a month costs: each operation of the reference month's mix
 * through its real handler in this process (the API key cached, as in a warm Lambda), its calls read
 * off the service's client: round trips, units as DynamoDB Local reports them and as AWS bills them,
 * handler time, the answer's bytes. The monthly table (README's) is a pure function of these and the
 * price list (cost-table.ts, prices.ts). Units per request do not depend on the month's volume, so
 * the small fixture Tenant is enough; what scales with the listings (storage) is in the assumptions.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
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
  type CostCase,
  type CostResult,
  expectStatus,
  invoke,
  measureCase,
  siteRequest,
} from '../dynamo-costs.ts';
import { fixed, table } from '../stats.ts';

/** Every HTTP function's memory: ServiceFunction's default (lib/constructs/service-function.ts). */
const HTTP_FUNCTION_MEMORY_MB = 1024;

export const cost = defineSection({
  name: 'cost',
  about: "each operation of the month's mix through its handler (DynamoDB units, time), and a month's cost",
  async run(ctx) {
    const { fixture } = await ctx.service();
    const [samples, run, key] = [ctx.num('samples'), randomUUID().slice(0, 6), fixture.apiKey];
    const measuredOn = `${new Date().toISOString().slice(0, 10)}, load ${loadAverages().join(' / ')}`;
    /** A live listing (type, price, Place) the site reads by slug and the API reads and reprices. */
    const live = async (title: string) => {
      const body = { title, listing_type: 'sale', price: '450000', currency: 'EUR', place_code: 'ES-MA-MAR' };
      const created = await invoke('createProperty', key, { body });
      expectStatus(created, 201, 'cost listing');
      return JSON.parse(created.body ?? '{}') as { id: string; slug: string };
    };
    const { id, slug } = await live(`Bench cost villa ${run}`);
    // A view is counted once per visitor, listing and minute: each measured view is of a listing
    // this visitor has not viewed yet, as a page's view count is.
    const viewed: string[] = [];
    for (let i = 0; i <= samples + 1; i++) viewed.push((await live(`Bench viewed ${run} ${i}`)).slug);
    const siteKey = fixture.siteKey;
    const person = (i: number) => ({
      name: `Cost Bench ${i}`,
      email: `cost.bench.${run}.${i}@example.com`,
      locale: 'es',
    });
    const [flat, inquiry] = [
      { listing_type: 'sale', price: '350000', currency: 'EUR' },
      { source: 'website', type: 'inquiry', message: '¿Sigue disponible?' },
    ];
    const cases: Record<MixOperation, Omit<CostCase, 'operationId' | 'label'>> = {
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
      ingestLead: { status: 201, request: (i) => ({ body: { ...inquiry, person: person(i) } }) },
      listLeads: { status: 200, request: () => ({ query: { limit: '25' } }) },
      searchSiteProperties: { status: 200, request: () => siteRequest(siteKey, { query: { limit: '12' } }) },
      getSitePropertyBySlug: {
        status: 200,
        request: () => siteRequest(siteKey, { pathParameters: { slug } }),
      },
      countSitePropertyView: {
        status: 204,
        request: (i) => siteRequest(siteKey, { pathParameters: { slug: viewed[i] ?? slug } }),
      },
    };
    const rows: CostResult[] = [];
    const measured = {} as MeasuredOperations;
    for (const operationId of MIX_OPERATIONS) {
      const c = { ...cases[operationId], operationId, label: operationId };
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
    return [
      `Median of ${samples} requests after a warm-up. seq: calls started while no other was in flight. Billed: as AWS bills them (a read that finds nothing at half a unit, a refused conditional write at one, a transaction item at two and its index entries; Local reports none of these); SES/SQS: messages queued (the local outbox and queue's writes).`,
      '',
      ...table(
        [
          'operation',
          'status',
          'RT',
          'seq',
          'calls',
          'RCU',
          'WCU',
          'billed RCU',
          'billed WCU',
          'SES/SQS',
          'ms',
          'targets',
        ],
        rows.map((c) => [
          ...[
            c.label,
            c.status,
            c.roundTrips,
            c.sequentialRoundTrips,
            c.operations.join(', '),
            c.readUnits,
            c.writeUnits,
          ],
          ...[c.billedReadUnits, c.billedWriteUnits, c.localPortWrites, fixed(c.latencyMs)],
          c.checks.map((k) => `${k.label} ${k.ok ? 'ok' : 'OVER'}`).join('; ') || '-',
        ]),
      ),
      '',
      ...costTable.split('\n'),
    ];
  },
});
