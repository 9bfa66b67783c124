/**
 * The pure part of the cost section: measured units × a reference month × the price list → monthly
 * USD per line item (the service's own, and photo delivery), the README's table and its rewrite. No
 * I/O: test/unit/bench-cost.test.ts checks the arithmetic exactly.
 */
import { PRICES, PRICES_READ, type Prices, tieredUsd } from './prices.ts';

/** Share of the day's API calls per operation (sums to 1). */
const API_MIX = {
  ...{ getProperty: 0.3, listProperties: 0.15, updateProperty: 0.2 },
  ...{ createProperty: 0.05, ingestLead: 0.15, listLeads: 0.15 },
};
/** Site requests per page view: half search pages, half listing pages (which also count a view). */
const SITE_MIX = { searchSiteProperties: 0.5, getSitePropertyBySlug: 0.5, countSitePropertyView: 0.5 };
export type MixOperation = keyof typeof API_MIX | keyof typeof SITE_MIX;
/** The operations of the reference month's mix, each measured through its real handler. */
export const MIX_OPERATIONS = [...Object.keys(API_MIX), ...Object.keys(SITE_MIX)] as MixOperation[];

/**
 * What one request of an operation costs, as measured (medians): units as AWS bills them, handler ms
 * at the function's memory, the answer's bytes as CloudFront sends it, the messages for SQS or SES.
 */
export type MeasuredOperation = Record<
  'readUnits' | 'writeUnits' | 'lambdaMs' | 'memoryMb' | 'responseBytes' | 'messages',
  number
>;
export type MeasuredOperations = Record<MixOperation, MeasuredOperation>;

const agency = { listings: 500, leads: 5_000, sitePageViewsPerDay: 50_000, apiCallsPerDay: 2_000 };
export type Reference = typeof agency & { name: string };
export const REFERENCE_AGENCY: Reference = { name: 'Reference agency', ...agency };
/** The portal: 100 × the agency in every volume (listings, Leads, page views, API calls). */
export const REFERENCE_PORTAL: Reference = {
  name: 'Reference portal',
  ...Object.fromEntries(Object.entries(agency).map(([k, v]) => [k, v * 100])),
} as Reference;

/**
 * The example website's search page, images only, as test/browser/page-weight.test.ts measures it
 * (docs/bench.md, Page weight): 12 cards, each the 640 px WebP on a screen of pixel ratio 2.
 */
const SEARCH_PAGE_IMAGE_BYTES = 440_712;
/** A card (the 640 px WebP of a camera photo) and a listing page's large photo (the 1,600 px one). */
const [CARD_BYTES, LARGE_BYTES] = [35_000, 149_000];

/** The month's assumptions besides the measured figures: docs/bench.md (Cost) states and argues each. */
export const ASSUMPTIONS = {
  daysPerMonth: 30,
  apiMix: API_MIX as Partial<Record<MixOperation, number>>,
  siteMixPerPageView: SITE_MIX as Partial<Record<MixOperation, number>>,
  siteGetHitRatio: 0.15,
  photoBytesPerPageView: 0.5 * SEARCH_PAGE_IMAGE_BYTES + 0.5 * (LARGE_BYTES + 3 * CARD_BYTES),
  photoRequestsPerPageView: 0.5 * 12 + 0.5 * 4,
  photoHitRatio: 0.95,
  changeOperations: ['updateProperty', 'createProperty', 'ingestLead'] as MixOperation[],
  workerInvocationsPerChange: 2,
  workerMs: 100,
  workerMemoryMb: 512,
  sqsRequestsPerMessage: 3,
  listingItemBytes: 8_000,
  leadItemBytes: 4_000,
  photoStorageBytesPerListing: 15 * 2_100_000,
  logBytesPerInvocation: 1_500,
  wafRules: 2,
} as const;
export type Assumptions = typeof ASSUMPTIONS;

/** AWS's GB (2^30 bytes), the unit of every data price. */
export const GB = 2 ** 30;

/** The account's CloudFront bill for a month: tiered data out and HTTPS requests, free tier first. */
export function cloudFrontUsd(bytesOut: number, requests: number, prices: Prices = PRICES) {
  return {
    dataOut: tieredUsd(bytesOut / GB, prices.cloudFrontDataOut, prices.cloudFrontFreeGbOut),
    requests: Math.max(0, requests - prices.cloudFrontFreeRequests) * prices.cloudFrontHttpsRequest,
  };
}

/** A line of the bill: the service's own cost, or what any listings website pays to deliver its photos. */
export type LineItem = { item: string; usd: number; part: 'service' | 'photos' };
export type MonthlyCost = ReturnType<typeof monthlyCost>;

/** A month of one reference Tenant alone on an AWS account (so the free tier is all its own). */
export function monthlyCost(
  measured: MeasuredOperations,
  ref: Reference,
  prices: Prices = PRICES,
  a: Assumptions = ASSUMPTIONS,
) {
  const pageViews = ref.sitePageViewsPerDay * a.daysPerMonth;
  // Requests that reach a function add up to these; the site's viewer requests to the others.
  const n = { reads: 0, writes: 0, gbSeconds: 0, invocations: 0, messages: 0, changes: 0 };
  let [siteRequests, siteBytes, budgeted] = [0, 0, 0];
  /** `count` requests of `op` reach its function. */
  const add = (op: MixOperation, count: number) => {
    const m = measured[op];
    n.reads += count * m.readUnits;
    n.writes += count * m.writeUnits;
    n.gbSeconds += count * (m.lambdaMs / 1000) * (m.memoryMb / 1024);
    n.invocations += count;
    n.messages += count * m.messages;
    if (a.changeOperations.includes(op)) n.changes += count;
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
  const apiGatewayRequests = n.invocations;
  const photoRequests = pageViews * a.photoRequestsPerPageView;
  const photoBytes = pageViews * a.photoBytesPerPageView;

  const workerInvocations = n.changes * a.workerInvocationsPerChange;
  const gbSeconds = n.gbSeconds + workerInvocations * (a.workerMs / 1000) * (a.workerMemoryMb / 1024);
  const invocations = n.invocations + workerInvocations;
  // Each change's webhook delivery is queued too.
  const queued = n.messages + n.changes;

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
    service('DynamoDB reads', n.reads * prices.dynamoReadRequestUnit),
    service('DynamoDB writes', n.writes * prices.dynamoWriteRequestUnit),
    service('DynamoDB storage', dynamoGb * prices.dynamoStorageGbMonth),
    service(
      'Lambda (GB-s and requests)',
      gbSeconds * prices.lambdaArmGbSecond + invocations * prices.lambdaRequest,
    ),
    service('API Gateway HTTP API', apiGatewayRequests * prices.httpApiRequest),
    service('CloudFront, site API (HTTPS requests, data out)', cfShare(siteBytes, siteRequests)),
    service(
      'WAF, site distribution (web ACL, rules, requests)',
      prices.wafWebAclMonth + a.wafRules * prices.wafRuleMonth + siteRequests * prices.wafRequest,
    ),
    service(
      'SQS and SES (events, webhooks, emails)',
      queued * a.sqsRequestsPerMessage * prices.sqsRequest + n.messages * prices.sesEmail,
    ),
    service('CloudWatch Logs ingest', ((invocations * a.logBytesPerInvocation) / GB) * prices.logsIngestGb),
    photo('CloudFront, photos (HTTPS requests, data out)', cfShare(photoBytes, photoRequests)),
    photo(
      'S3, photos (storage, origin GETs)',
      ((ref.listings * a.photoStorageBytesPerListing) / GB) * prices.s3StorageGbMonth +
        photoRequests * (1 - a.photoHitRatio) * prices.s3Get,
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
    /** Site requests a minute that reach the API and spend the site budget (GETs the edge missed). */
    budgetedSiteRequestsPerMinute: budgeted / (a.daysPerMonth * 24 * 60),
  };
}

/** `1234.5` → `1,234.50`. */
export const usd = (value: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const count = (n: number) => n.toLocaleString('en-US');

/** The README block: a summary line per reference Tenant, then the table, a column per reference. */
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
    first.cost.lines.flatMap((line, i) =>
      line.part === part ? [row(line.item, (c) => c.lines[i]?.usd ?? Number.NaN)] : [],
    );
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
 * The text with what is between the markers replaced by `table`, every byte outside them unchanged.
 * Refuses a text without exactly one pair in order.
 */
export function replaceCostBlock(text: string, table: string): string {
  const [start, end] = [text.indexOf(COST_BLOCK_START), text.indexOf(COST_BLOCK_END)];
  const once = (marker: string) => text.split(marker).length === 2;
  if (!once(COST_BLOCK_START) || !once(COST_BLOCK_END) || end < start)
    throw new Error(`expected one ${COST_BLOCK_START} … ${COST_BLOCK_END} block`);
  return `${text.slice(0, start + COST_BLOCK_START.length)}\n${table}\n${text.slice(end)}`;
}
