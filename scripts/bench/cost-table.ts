/**
 * The pure part of the bench's cost section (issue 25, point 7): measured per-request figures ×
 * a reference month's mix × list prices → monthly USD per line item, the markdown table, and the
 * rewrite of the README's marked block. No I/O here, so test/unit checks the arithmetic exactly.
 */
import { PRICES, PRICES_READ, type Prices } from './prices.ts';

/** The operations of the reference month's mix, each measured through its real handler. */
export const MIX_OPERATIONS = [
  'getProperty',
  'listProperties',
  'updateProperty',
  'createProperty',
  'ingestLead',
  'listLeads',
  'searchSiteProperties',
  'getSitePropertyBySlug',
  'countSitePropertyView',
] as const;
export type MixOperation = (typeof MIX_OPERATIONS)[number];

/** What one request of an operation costs, as the bench measured it (medians). */
export interface MeasuredOperation {
  readUnits: number;
  /** Real DynamoDB write units (transaction items at 2 WCU each, see dynamo-costs.ts). */
  writeUnits: number;
  /** Handler time in-process against DynamoDB Local: the billed Lambda duration it stands for. */
  lambdaMs: number;
  /** The function's memory setting (route table / CDK default). */
  memoryMb: number;
  /** The answer's body, bytes: what CloudFront sends out for a site GET. */
  responseBytes: number;
  /** Messages the request hands to SQS or SES (the local outbox and queue writes). */
  messages: number;
}

export type MeasuredOperations = Record<MixOperation, MeasuredOperation>;

export interface Reference {
  name: string;
  listings: number;
  leads: number;
  sitePageViewsPerDay: number;
  apiCallsPerDay: number;
}

export const REFERENCE_AGENCY: Reference = {
  name: 'Reference agency',
  listings: 500,
  leads: 5_000,
  sitePageViewsPerDay: 50_000,
  apiCallsPerDay: 2_000,
};

/** The portal: 100 × the agency in every volume (listings, Leads, page views, API calls). */
export const REFERENCE_PORTAL: Reference = {
  name: 'Reference portal',
  listings: 50_000,
  leads: 500_000,
  sitePageViewsPerDay: 5_000_000,
  apiCallsPerDay: 200_000,
};

/** The month's assumptions besides the measured figures; each is stated in the report's notes. */
export const ASSUMPTIONS = {
  daysPerMonth: 30,
  /** Share of the day's API calls per operation (sums to 1). */
  apiMix: {
    getProperty: 0.3,
    listProperties: 0.15,
    updateProperty: 0.2,
    createProperty: 0.05,
    ingestLead: 0.15,
    listLeads: 0.15,
  } as Partial<Record<MixOperation, number>>,
  /** Site requests per page view: half search pages, half listing pages (which also count a view). */
  siteMixPerPageView: {
    searchSiteProperties: 0.5,
    getSitePropertyBySlug: 0.5,
    countSitePropertyView: 0.5,
  } as Partial<Record<MixOperation, number>>,
  /** Site GETs answered by CloudFront (`s-maxage=60`, cached per query string); POSTs always pass. */
  siteGetHitRatio: 0.8,
  /** Gallery photos a page view loads through `/media/*`, their mean size, and CloudFront's hit ratio (immutable files). */
  photosPerPageView: 6,
  photoBytes: 150_000,
  photoHitRatio: 0.95,
  /** Each listing or Lead change: one stream-consumer invocation and one webhook delivery (one endpoint). */
  changeOperations: ['updateProperty', 'createProperty', 'ingestLead'] as MixOperation[],
  workerInvocationsPerChange: 2,
  workerMs: 100,
  workerMemoryMb: 512,
  /** SQS requests per queued message: send, receive, delete. */
  sqsRequestsPerMessage: 3,
  /** Stored bytes: a listing with its texts, index entries and Areas; a Lead with its Inquiries and Activities. */
  listingItemBytes: 8_000,
  leadItemBytes: 4_000,
  /** S3: a listing's photos (15 × original and renditions) and the catalogue snapshot's bytes per listing. */
  photoStorageBytesPerListing: 15 * 1_500_000,
  snapshotBytesPerListing: 300,
  /** CloudWatch Logs ingested per Lambda invocation (the structured request line and the platform lines). */
  logBytesPerInvocation: 1_500,
  /** The web ACL's rules (lib/constructs/edge-firewall.ts). */
  wafRules: 2,
} as const;
export type Assumptions = typeof ASSUMPTIONS;

export interface LineItem {
  item: string;
  usd: number;
}

const GB = 1e9;

/** Monthly USD per line item of one reference (the total last). */
export function monthlyCosts(
  measured: MeasuredOperations,
  ref: Reference,
  prices: Prices = PRICES,
  a: Assumptions = ASSUMPTIONS,
): LineItem[] {
  const pageViews = ref.sitePageViewsPerDay * a.daysPerMonth;
  const apiCalls = ref.apiCallsPerDay * a.daysPerMonth;
  let reads = 0;
  let writes = 0;
  let gbSeconds = 0;
  let invocations = 0;
  let messages = 0;
  let cloudFrontRequests = 0;
  let cloudFrontBytes = 0;
  let changes = 0;
  /** `count` requests reach the function; `viewerCount` reach CloudFront (site requests only). */
  const add = (op: MixOperation, count: number) => {
    const m = measured[op];
    reads += count * m.readUnits;
    writes += count * m.writeUnits;
    gbSeconds += count * (m.lambdaMs / 1000) * (m.memoryMb / 1024);
    invocations += count;
    messages += count * m.messages;
    if (a.changeOperations.includes(op)) changes += count;
  };
  for (const [op, share] of Object.entries(a.apiMix) as [MixOperation, number][]) add(op, apiCalls * share);
  for (const [op, perView] of Object.entries(a.siteMixPerPageView) as [MixOperation, number][]) {
    const viewerRequests = pageViews * perView;
    const isGet = op !== 'countSitePropertyView';
    cloudFrontRequests += viewerRequests;
    cloudFrontBytes += viewerRequests * measured[op].responseBytes;
    add(op, isGet ? viewerRequests * (1 - a.siteGetHitRatio) : viewerRequests);
  }
  const apiGatewayRequests = invocations;
  const photoRequests = pageViews * a.photosPerPageView;
  cloudFrontRequests += photoRequests;
  cloudFrontBytes += photoRequests * a.photoBytes;
  const s3Gets = photoRequests * (1 - a.photoHitRatio);
  const wafRequests = cloudFrontRequests;

  const workerInvocations = changes * a.workerInvocationsPerChange;
  gbSeconds += workerInvocations * (a.workerMs / 1000) * (a.workerMemoryMb / 1024);
  invocations += workerInvocations;
  // Each change's webhook delivery is queued too.
  const queued = messages + changes;

  const dynamoGb = (ref.listings * a.listingItemBytes + ref.leads * a.leadItemBytes) / GB;
  const s3Gb = (ref.listings * (a.photoStorageBytesPerListing + a.snapshotBytesPerListing)) / GB;

  const items: LineItem[] = [
    { item: 'DynamoDB reads', usd: reads * prices.dynamoReadRequestUnit.usd },
    { item: 'DynamoDB writes', usd: writes * prices.dynamoWriteRequestUnit.usd },
    { item: 'DynamoDB storage', usd: dynamoGb * prices.dynamoStorageGbMonth.usd },
    {
      item: 'Lambda (GB-s and requests)',
      usd: gbSeconds * prices.lambdaArmGbSecond.usd + invocations * prices.lambdaRequest.usd,
    },
    { item: 'API Gateway HTTP API', usd: apiGatewayRequests * prices.httpApiRequest.usd },
    {
      item: 'CloudFront (requests and data out)',
      usd:
        cloudFrontRequests * prices.cloudFrontHttpsRequest.usd +
        (cloudFrontBytes / GB) * prices.cloudFrontGbOut.usd,
    },
    {
      item: 'WAF (web ACL, rules, requests)',
      usd:
        prices.wafWebAclMonth.usd +
        a.wafRules * prices.wafRuleMonth.usd +
        wafRequests * prices.wafRequest.usd,
    },
    {
      item: 'S3 (photos, snapshots: storage and GETs)',
      usd: s3Gb * prices.s3StorageGbMonth.usd + s3Gets * prices.s3Get.usd,
    },
    {
      item: 'SQS and SES (events, webhooks, emails)',
      usd: queued * a.sqsRequestsPerMessage * prices.sqsRequest.usd + messages * prices.sesEmail.usd,
    },
    {
      item: 'CloudWatch Logs ingest',
      usd: ((invocations * a.logBytesPerInvocation) / GB) * prices.logsIngestGb.usd,
    },
  ];
  return [...items, { item: 'Total', usd: items.reduce((sum, i) => sum + i.usd, 0) }];
}

/** `1234.5` → `1,234.50`. */
export function usd(value: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** The markdown table: one row per line item, one column per reference. */
export function renderCostTable(
  columns: readonly { ref: Reference; items: readonly LineItem[] }[],
  measuredOn: string,
): string {
  const [first] = columns;
  if (!first) throw new Error('renderCostTable: no reference');
  const header = `| Monthly, USD | ${columns.map((c) => `${c.ref.name} (${c.ref.listings.toLocaleString('en-US')} listings)`).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---:').join('|')}|`;
  const rows = first.items.map((line, i) => {
    const label = line.item === 'Total' ? '**Total**' : line.item;
    const cells = columns.map((c) => {
      const value = usd(c.items[i]?.usd ?? Number.NaN);
      return line.item === 'Total' ? `**${value}**` : value;
    });
    return `| ${label} | ${cells.join(' | ')} |`;
  });
  const refs = columns
    .map(
      (c) =>
        `${c.ref.name}: ${c.ref.leads.toLocaleString('en-US')} Leads, ${c.ref.sitePageViewsPerDay.toLocaleString('en-US')} site page views and ${c.ref.apiCallsPerDay.toLocaleString('en-US')} API calls a day.`,
    )
    .join(' ');
  return [
    header,
    rule,
    ...rows,
    '',
    `${refs} Per-request units and Lambda time measured by \`npm run bench -- --only cost\` (${measuredOn}); ${PRICES_READ} (scripts/bench/prices.ts); the mix and the other assumptions are in scripts/bench/cost-table.ts and docs/bench.md (Cost).`,
  ].join('\n');
}

export const COST_BLOCK_START = '<!-- cost-table:start -->';
export const COST_BLOCK_END = '<!-- cost-table:end -->';

/**
 * The text with everything between the markers replaced by `table` (markers kept, on their own
 * lines), every byte outside them unchanged. Refuses a text without exactly one pair in order.
 */
export function replaceCostBlock(text: string, table: string): string {
  const start = text.indexOf(COST_BLOCK_START);
  const end = text.indexOf(COST_BLOCK_END);
  if (
    start < 0 ||
    end < start ||
    text.indexOf(COST_BLOCK_START, start + 1) >= 0 ||
    text.indexOf(COST_BLOCK_END, end + 1) >= 0
  ) {
    throw new Error(`expected one ${COST_BLOCK_START} … ${COST_BLOCK_END} block`);
  }
  return `${text.slice(0, start + COST_BLOCK_START.length)}\n${table}\n${text.slice(end)}`;
}
