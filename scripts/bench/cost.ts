/**
 * The bench's `cost` section (issue 25, point 7): each operation of the reference month's mix
 * measured through its real handler and the DynamoDB recorder (dynamo-costs.ts measureCase), then
 * priced by cost-table.ts. Units per request do not depend on the month's volume, so a small
 * seeded Tenant (the fixture's and the site row's listings) is enough; what scales with the
 * listings count (storage, and the catalogue a cold site container loads) is in the assumptions.
 */
import { randomUUID } from 'node:crypto';
import {
  type LineItem,
  type MeasuredOperations,
  MIX_OPERATIONS,
  type MixOperation,
  monthlyCosts,
  REFERENCE_AGENCY,
  REFERENCE_PORTAL,
  type Reference,
  renderCostTable,
} from './cost-table.ts';
import type { BenchFixture, CostCase } from './dynamo-costs.ts';

/** Every HTTP function's memory: ServiceFunction's default (lib/constructs/service-function.ts), no route overrides it. */
export const HTTP_FUNCTION_MEMORY_MB = 1024;

export interface CostSection {
  measured: MeasuredOperations;
  references: { ref: Reference; items: LineItem[] }[];
  /** The README block's content (between the cost-table markers). */
  table: string;
}

/** The page origin of the section's publishable key. */
const SITE_PAGE = 'https://www.bench-cost.example';

export async function measureCostSection(
  fixture: BenchFixture,
  samples: number,
  log: (line: string) => void,
  measuredOn: string,
): Promise<CostSection> {
  const { expectStatus, invoke, measureCase } = await import('./dynamo-costs.ts');
  const { issueSiteKey } = await import('../../functions/services/site-keys.ts');
  const run = randomUUID().slice(0, 6);
  // A live listing (type, price, Place) the site reads by slug and the API reads and reprices.
  const created = await invoke('createProperty', fixture.apiKey, {
    body: {
      title: `Bench cost villa ${run}`,
      listing_type: 'sale',
      price: '450000',
      currency: 'EUR',
      place_code: 'ES-MA-MAR',
    },
  });
  expectStatus(created, 201, 'cost listing');
  const { id: listingId, slug } = JSON.parse(created.body ?? '{}') as { id: string; slug: string };
  const { key } = await issueSiteKey({ tenantId: fixture.tenantId, origins: SITE_PAGE });
  const site = (query: Record<string, string> = {}) => ({
    query: { key, origin: SITE_PAGE, ...query },
    headers: { origin: SITE_PAGE },
  });

  const cases: Record<MixOperation, Omit<CostCase, 'operationId' | 'label'>> = {
    getProperty: { status: 200, request: () => ({ pathParameters: { property_id: listingId ?? '' } }) },
    listProperties: { status: 200, request: () => ({}) },
    updateProperty: {
      status: 200,
      request: (i) => ({
        pathParameters: { property_id: listingId ?? '' },
        body: { price: String(300_000 + i) },
      }),
    },
    createProperty: {
      status: 201,
      request: (i) => ({
        body: {
          title: `Bench cost flat ${run} ${i}`,
          listing_type: 'sale',
          price: '350000',
          currency: 'EUR',
        },
      }),
    },
    ingestLead: {
      status: 201,
      request: (i) => ({
        body: {
          source: 'website',
          type: 'inquiry',
          person: { name: `Cost Bench ${i}`, email: `cost.bench.${run}.${i}@example.com`, locale: 'es' },
          message: '¿Sigue disponible?',
        },
      }),
    },
    listLeads: { status: 200, request: () => ({ query: { limit: '25' } }) },
    searchSiteProperties: { status: 200, request: () => site({ limit: '12' }) },
    getSitePropertyBySlug: { status: 200, request: () => ({ ...site(), pathParameters: { slug } }) },
    countSitePropertyView: { status: 204, request: () => ({ ...site(), pathParameters: { slug } }) },
  };

  const measured = {} as MeasuredOperations;
  for (const operationId of MIX_OPERATIONS) {
    const c = { ...cases[operationId], operationId, label: operationId };
    const isSite = operationId.includes('Site');
    // A site request carries the publishable key in the query; the secret key's header is then unused.
    const r = await measureCase(c, fixture.apiKey, samples);
    const sample = await invoke(operationId, fixture.apiKey, c.request(samples + 1));
    measured[operationId] = {
      readUnits: r.readUnits,
      writeUnits: r.realWriteUnitsEstimate + r.transactIndexWrites - r.localPortWrites,
      lambdaMs: r.latencyMs,
      memoryMb: HTTP_FUNCTION_MEMORY_MB,
      responseBytes: Buffer.byteLength(sample.body ?? ''),
      messages: r.localPortWrites,
    };
    log(
      `  ${operationId}${isSite ? ' (site)' : ''}: ${r.readUnits} RCU, ${measured[operationId].writeUnits} WCU, ${r.latencyMs} ms, ${r.localPortWrites} messages`,
    );
  }
  const references = [REFERENCE_AGENCY, REFERENCE_PORTAL].map((ref) => ({
    ref,
    items: monthlyCosts(measured, ref),
  }));
  return { measured, references, table: renderCostTable(references, measuredOn) };
}

export const COST_NOTES = [
  "Cost: every operation of the mix through its real handler and the DynamoDB recorder on a small seeded Tenant (units per request do not depend on the month's volume; storage and a cold site container's catalogue load scale with the listings). Lambda duration is the in-process handler time against DynamoDB Local, at 1024 MB arm64. Mix: API calls 30% getProperty, 15% listProperties, 20% updateProperty, 5% createProperty, 15% ingestLead, 15% listLeads; per site page view 0.5 search, 0.5 listing by slug and 0.5 view count (POST, never cached); CloudFront answers 80% of site GETs (s-maxage=60) and 95% of the 6 photos (150 KB) a page view loads. Each change: one stream-consumer run and one webhook delivery (100 ms at 512 MB, 3 SQS requests each queued message). Storage: 8 KB per listing and 4 KB per Lead in DynamoDB, 22.5 MB of photos and 300 B of snapshot per listing in S3; 1.5 KB of logs per invocation; WAF: 1 web ACL, 2 rules. The portal is the agency × 100 in every volume. `--readme` rewrites README.md's cost-table block. Bedrock enrichment is left out (opt-in, per token).",
];
