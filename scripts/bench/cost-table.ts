/**
 * The pure part of the bench's cost section: the measured units of each operation × a reference
 * month × the price list (prices.ts) → monthly USD per line item, split into the service's own cost
 * and photo delivery (what any listings website pays for its photos' bandwidth), the markdown table
 * and the rewrite of the README's marked block. No I/O here: test/unit/bench-cost.test.ts checks the
 * arithmetic exactly.
 */
import { PRICES, PRICES_READ, type Prices, tieredUsd } from './prices.ts';

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

/**
 * What one request of an operation costs, as the bench measured it (medians): DynamoDB units as AWS
 * bills them (dynamo-costs.ts `billedUnits`), handler ms in-process (the Lambda duration it stands
 * for) at the function's memory, the answer's bytes as CloudFront sends it (compressed), and the
 * messages it hands to SQS or SES.
 */
export interface MeasuredOperation {
  readUnits: number;
  writeUnits: number;
  lambdaMs: number;
  memoryMb: number;
  responseBytes: number;
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
const agency = { listings: 500, leads: 5_000, sitePageViewsPerDay: 50_000, apiCallsPerDay: 2_000 };
export const REFERENCE_AGENCY: Reference = { name: 'Reference agency', ...agency };
/** The portal: 100 × the agency in every volume (listings, Leads, page views, API calls). */
export const REFERENCE_PORTAL: Reference = {
  name: 'Reference portal',
  ...Object.fromEntries(Object.entries(agency).map(([k, v]) => [k, v * 100])),
} as Reference;

/**
 * The example website's search page, images only, as the browser test measures it
 * (test/browser/page-weight.test.ts, docs/bench.md Page weight, 2026-11-29): 12 cards at 1280 × 800
 * on a screen of device pixel ratio 2, each the 640 px WebP (at ratio 1 the 320 px one: 87,972 B).
 */
const SEARCH_PAGE_IMAGE_BYTES = 440_712;
/** A card (the 640 px WebP of a camera photo) and a listing page's large photo (the 1,600 px one). */
const [CARD_BYTES, LARGE_BYTES] = [35_000, 149_000];

/** The month's assumptions besides the measured figures; docs/bench.md (Cost) argues each. */
export const ASSUMPTIONS = {
  daysPerMonth: 30,
  /** Share of the day's API calls per operation (sums to 1). */
  apiMix: {
    ...{ getProperty: 0.3, listProperties: 0.15, updateProperty: 0.2 },
    ...{ createProperty: 0.05, ingestLead: 0.15, listLeads: 0.15 },
  } as Partial<Record<MixOperation, number>>,
  /** Site requests per page view: half search pages, half listing pages (which also count a view). */
  siteMixPerPageView: {
    ...{ searchSiteProperties: 0.5, getSitePropertyBySlug: 0.5, countSitePropertyView: 0.5 },
  } as Partial<Record<MixOperation, number>>,
  /** Site GETs CloudFront answers from its cache (60 s, stale 300 s more; posts always pass). */
  siteGetHitRatio: 0.15,
  /** Photo bytes a page view transfers: half a search page as measured, half a listing page. */
  photoBytesPerPageView: 0.5 * SEARCH_PAGE_IMAGE_BYTES + 0.5 * (LARGE_BYTES + 3 * CARD_BYTES),
  photoRequestsPerPageView: 0.5 * 12 + 0.5 * 4,
  /** Photo requests CloudFront answers from its cache: renditions are content-addressed, cached a year. */
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
  /** S3: 15 photos a listing, the original kept privately (1.5 MB) and its renditions (0.6 MB). */
  photoStorageBytesPerListing: 15 * 2_100_000,
  /** CloudWatch Logs ingested per Lambda invocation (the structured request line and the platform lines). */
  logBytesPerInvocation: 1_500,
  /** The site distribution's web ACL and its rules (lib/constructs/edge-firewall.ts). */
  wafRules: 2,
} as const;
export type Assumptions = typeof ASSUMPTIONS;

/** AWS's GB (2^30 bytes), the unit of every data price. */
export const GB = 2 ** 30;

/** The account's CloudFront bill for a month: tiered data out and HTTPS requests, free tier first. */
export function cloudFrontUsd(bytesOut: number, requests: number, prices: Prices = PRICES) {
  const free = prices.cloudFrontFreeTier;
  return {
    dataOut: tieredUsd(bytesOut / GB, prices.cloudFrontDataOut.tiers, free.gbOut),
    requests: Math.max(0, requests - free.requests) * prices.cloudFrontHttpsRequest.usd,
  };
}

export interface LineItem {
  item: string;
  usd: number;
  /** The service's own cost, or what any listings website pays to deliver its photos. */
  part: 'service' | 'photos';
}

export interface MonthlyCost {
  lines: LineItem[];
  service: number;
  photos: number;
  total: number;
  photoBytesOut: number;
  /** Site requests a minute that reach the API and spend the site budget (GETs the edge missed). */
  budgetedSiteRequestsPerMinute: number;
}

/** A month of one reference Tenant alone on an AWS account (so the free tier is all its own). */
export function monthlyCost(
  measured: MeasuredOperations,
  ref: Reference,
  prices: Prices = PRICES,
  a: Assumptions = ASSUMPTIONS,
): MonthlyCost {
  const pageViews = ref.sitePageViewsPerDay * a.daysPerMonth;
  let reads = 0;
  let writes = 0;
  let gbSeconds = 0;
  let invocations = 0;
  let messages = 0;
  let changes = 0;
  let siteRequests = 0;
  let siteBytes = 0;
  let budgeted = 0;
  /** `count` requests of `op` reach its function. */
  const add = (op: MixOperation, count: number) => {
    const m = measured[op];
    reads += count * m.readUnits;
    writes += count * m.writeUnits;
    gbSeconds += count * (m.lambdaMs / 1000) * (m.memoryMb / 1024);
    invocations += count;
    messages += count * m.messages;
    if (a.changeOperations.includes(op)) changes += count;
  };
  for (const [op, share] of Object.entries(a.apiMix) as [MixOperation, number][]) {
    add(op, ref.apiCallsPerDay * a.daysPerMonth * share);
  }
  for (const [op, perView] of Object.entries(a.siteMixPerPageView) as [MixOperation, number][]) {
    const viewerRequests = pageViews * perView;
    siteRequests += viewerRequests;
    siteBytes += viewerRequests * measured[op].responseBytes;
    if (op === 'countSitePropertyView') add(op, viewerRequests);
    else {
      add(op, viewerRequests * (1 - a.siteGetHitRatio));
      budgeted += viewerRequests * (1 - a.siteGetHitRatio);
    }
  }
  const apiGatewayRequests = invocations;
  const photoRequests = pageViews * a.photoRequestsPerPageView;
  const photoBytes = pageViews * a.photoBytesPerPageView;

  const workerInvocations = changes * a.workerInvocationsPerChange;
  gbSeconds += workerInvocations * (a.workerMs / 1000) * (a.workerMemoryMb / 1024);
  invocations += workerInvocations;
  // Each change's webhook delivery is queued too.
  const queued = messages + changes;

  // One account, both distributions: its tiers and free tier apply to their sum, shared out by
  // bytes (data out) and by requests.
  const cf = cloudFrontUsd(siteBytes + photoBytes, siteRequests + photoRequests, prices);
  const cfShare = (bytes: number, requests: number) =>
    cf.dataOut * (bytes / (siteBytes + photoBytes || 1)) +
    cf.requests * (requests / (siteRequests + photoRequests || 1));

  const dynamoGb = (ref.listings * a.listingItemBytes + ref.leads * a.leadItemBytes) / GB;
  const service = (item: string, usd: number): LineItem => ({ item, usd, part: 'service' });
  const photo = (item: string, usd: number): LineItem => ({ item, usd, part: 'photos' });
  const lines: LineItem[] = [
    service('DynamoDB reads', reads * prices.dynamoReadRequestUnit.usd),
    service('DynamoDB writes', writes * prices.dynamoWriteRequestUnit.usd),
    service('DynamoDB storage', dynamoGb * prices.dynamoStorageGbMonth.usd),
    service(
      'Lambda (GB-s and requests)',
      gbSeconds * prices.lambdaArmGbSecond.usd + invocations * prices.lambdaRequest.usd,
    ),
    service('API Gateway HTTP API', apiGatewayRequests * prices.httpApiRequest.usd),
    service('CloudFront, site API (HTTPS requests, data out)', cfShare(siteBytes, siteRequests)),
    service(
      'WAF, site distribution (web ACL, rules, requests)',
      prices.wafWebAclMonth.usd + a.wafRules * prices.wafRuleMonth.usd + siteRequests * prices.wafRequest.usd,
    ),
    service(
      'SQS and SES (events, webhooks, emails)',
      queued * a.sqsRequestsPerMessage * prices.sqsRequest.usd + messages * prices.sesEmail.usd,
    ),
    service(
      'CloudWatch Logs ingest',
      ((invocations * a.logBytesPerInvocation) / GB) * prices.logsIngestGb.usd,
    ),
    photo('CloudFront, photos (HTTPS requests, data out)', cfShare(photoBytes, photoRequests)),
    photo(
      'S3, photos (storage, origin GETs)',
      ((ref.listings * a.photoStorageBytesPerListing) / GB) * prices.s3StorageGbMonth.usd +
        photoRequests * (1 - a.photoHitRatio) * prices.s3Get.usd,
    ),
  ];
  const sum = (part: LineItem['part']) =>
    lines.filter((l) => l.part === part).reduce((total, l) => total + l.usd, 0);
  return {
    lines,
    service: sum('service'),
    photos: sum('photos'),
    total: sum('service') + sum('photos'),
    photoBytesOut: photoBytes,
    budgetedSiteRequestsPerMinute: budgeted / (a.daysPerMonth * 24 * 60),
  };
}

/** `1234.5` → `1,234.50`. */
export function usd(value: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The README block: a one-line summary per reference Tenant, then the table (the service's lines and
 * their sum, photo delivery's and theirs, the total), one column per reference.
 */
export function renderCostTable(
  columns: readonly { ref: Reference; cost: MonthlyCost }[],
  measuredOn: string,
): string {
  const [first] = columns;
  if (!first) throw new Error('renderCostTable: no reference');
  const summaries = columns.map(
    ({ ref, cost }) =>
      `- **${ref.name}** (${count(ref.listings)} listings, ${count(ref.sitePageViewsPerDay)} page views a day): ` +
      `**$${usd(cost.service)}** a month for the service, **$${usd(cost.photos)}** for photo delivery ` +
      `(${(cost.photoBytesOut / GB / 1024).toFixed(1)} TB out), $${usd(cost.total)} in all.`,
  );
  const row = (label: string, pick: (c: MonthlyCost) => number, bold = false) => {
    const b = (s: string) => (bold ? `**${s}**` : s);
    return `| ${b(label)} | ${columns.map((c) => b(usd(pick(c.cost)))).join(' | ')} |`;
  };
  const linesOf = (part: LineItem['part']) =>
    first.cost.lines
      .map((line, i) => ({ line, i }))
      .filter(({ line }) => line.part === part)
      .map(({ line, i }) => row(line.item, (c) => c.lines[i]?.usd ?? Number.NaN));
  const refs = columns
    .map(
      ({ ref }) =>
        `${ref.name}: ${count(ref.leads)} Leads, ${count(ref.sitePageViewsPerDay)} site page views and ${count(ref.apiCallsPerDay)} API calls a day.`,
    )
    .join(' ');
  return [
    ...summaries,
    '',
    `| Monthly, USD | ${columns.map((c) => `${c.ref.name} (${count(c.ref.listings)} listings)`).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...linesOf('service'),
    row('The service', (c) => c.service, true),
    ...linesOf('photos'),
    row('Photo delivery', (c) => c.photos, true),
    row('Total', (c) => c.total, true),
    '',
    `${refs} Each column is that Tenant alone on one AWS account (CloudFront's free tier is its own). ` +
      `Per-request units and Lambda time measured by \`npm run bench -- --only cost\` (${measuredOn}); ` +
      `${PRICES_READ} (scripts/bench/prices.ts); the mix and the other assumptions are in ` +
      'scripts/bench/cost-table.ts and docs/bench.md (Cost).',
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
