import { describe, expect, it } from 'vitest';
import { config } from '../../functions/kernel/config.ts';
import {
  ASSUMPTIONS,
  COST_BLOCK_END,
  COST_BLOCK_START,
  cloudFrontUsd,
  GB,
  type MeasuredOperation,
  type MeasuredOperations,
  MIX_OPERATIONS,
  type MonthlyCost,
  monthlyCost,
  REFERENCE_AGENCY,
  REFERENCE_PORTAL,
  renderCostTable,
  replaceCostBlock,
} from '../../scripts/bench/cost-table.ts';
import { billedUnits } from '../../scripts/bench/dynamo-recorder.ts';
import { PRICES, tieredUsd } from '../../scripts/bench/prices.ts';

const nothing: MeasuredOperation = {
  readUnits: 0,
  writeUnits: 0,
  lambdaMs: 0,
  memoryMb: 1024,
  responseBytes: 0,
  messages: 0,
};

/** Every operation free but the ones given. */
function measured(overrides: Partial<MeasuredOperations>): MeasuredOperations {
  return Object.fromEntries(MIX_OPERATIONS.map((op) => [op, overrides[op] ?? nothing])) as MeasuredOperations;
}

const line = (cost: MonthlyCost, prefix: string) =>
  cost.lines.find((i) => i.item.startsWith(prefix))?.usd ?? Number.NaN;

const TB = 1024;

describe('billedUnits: DynamoDB units as AWS bills them', () => {
  it('bills what AWS bills where DynamoDB Local reports less: empty reads, refused conditional writes', () => {
    const call = (
      operation: string,
      input: Record<string, unknown>,
      output: Record<string, unknown>,
      status = 200,
    ) => billedUnits({ operation, input, output, status, round: 1 });

    // A read that finds nothing: half a unit eventually consistent, one strongly; per key in a batch.
    expect(call('GetItem', {}, {})).toEqual({ read: 0.5, write: 0 });
    expect(call('Query', { ConsistentRead: true }, { Count: 0 })).toEqual({ read: 1, write: 0 });
    expect(call('BatchGetItem', { RequestItems: { t: { Keys: [{}, {}, {}] } } }, {})).toEqual({
      read: 1.5,
      write: 0,
    });
    // A read that finds more is billed as reported.
    expect(call('Query', {}, { ConsumedCapacity: { CapacityUnits: 3 } })).toEqual({ read: 3, write: 0 });
    // A conditional write its condition refused: a failed call Local reports no capacity for.
    const refused = { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException' };
    expect(call('UpdateItem', {}, refused, 400)).toEqual({ read: 0, write: 1 });
    expect(call('UpdateItem', {}, { __type: 'ValidationException' }, 400)).toEqual({ read: 0, write: 0 });
    expect(call('UpdateItem', {}, { ConsumedCapacity: { CapacityUnits: 1 } })).toEqual({ read: 0, write: 1 });
  });
});

describe('CloudFront: tiered data out, HTTPS requests, the free tier', () => {
  it('prices data out by its tiers across a boundary, the free TB off the first tier', () => {
    // Prepare: 12 TB in a month, 2 TB past the first tier's 10.
    const bytes = 12 * TB * GB;

    // Act
    const { dataOut } = cloudFrontUsd(bytes, 0);

    // Assess: 9 TB at $0.085 (the first TB free), 2 TB at $0.080.
    expect(dataOut).toBeCloseTo(9 * TB * 0.085 + 2 * TB * 0.08, 6);
  });

  it('goes down every tier for a large month', () => {
    // Act: 200 TB = 10 + 40 + 100 + 50 of the 350 TB tier, the first TB free.
    const usd = tieredUsd(200 * TB, PRICES.cloudFrontDataOut, 1 * TB);

    // Assess
    expect(usd).toBeCloseTo((9 * 0.085 + 40 * 0.08 + 100 * 0.06 + 50 * 0.04) * TB, 6);
  });

  it('charges nothing inside the free tier and HTTPS requests past it', () => {
    // Act
    const within = cloudFrontUsd(0.5 * TB * GB, 9_000_000);
    const past = cloudFrontUsd(0, 12_000_000);

    // Assess: 2 million HTTPS requests at $0.0100 per 10,000.
    expect(within).toEqual({ dataOut: 0, requests: 0 });
    expect(past.requests).toBeCloseTo(2_000_000 * (0.01 / 10_000), 9);
  });
});

describe('monthlyCost: measured units × the month × the price list', () => {
  it('prices the read units of API calls by their share of the month', () => {
    // Prepare: only getProperty reads, 2 RCU a request.
    const figures = measured({ getProperty: { ...nothing, readUnits: 2 } });

    // Act
    const cost = monthlyCost(figures, REFERENCE_AGENCY);

    // Assess: 2,000 calls a day × 30 days × 30% getProperty × 2 RCU × $0.125 per million.
    expect(line(cost, 'DynamoDB reads')).toBeCloseTo(2_000 * 30 * 0.3 * 2 * (0.125 / 1e6), 12);
  });

  it('charges a site GET only when the edge misses it, the view count for every view', () => {
    // Prepare: one write unit per site search and per view count.
    const figures = measured({
      searchSiteProperties: { ...nothing, writeUnits: 1 },
      countSitePropertyView: { ...nothing, writeUnits: 1 },
    });

    // Act
    const cost = monthlyCost(figures, REFERENCE_AGENCY);

    // Assess: 50,000 views a day × 30 × (0.5 searches × misses + 0.5 view counts) × $0.625/M.
    const requests = 50_000 * 30 * (0.5 * (1 - ASSUMPTIONS.siteGetHitRatio) + 0.5);
    expect(line(cost, 'DynamoDB writes')).toBeCloseTo(requests * (0.625 / 1e6), 12);
    // Only the GETs the edge missed spend the site budget (the view count reads it, spends nothing).
    expect(cost.budgetedSiteRequestsPerMinute).toBeCloseTo(
      (50_000 / 1440) * (0.5 + 0.5) * (1 - ASSUMPTIONS.siteGetHitRatio),
      9,
    );
  });

  it('turns measured milliseconds and memory into arm64 GB-seconds', () => {
    // Prepare: listLeads takes 200 ms at 512 MB; the worker runs of changes are priced too.
    const figures = measured({ listLeads: { ...nothing, lambdaMs: 200, memoryMb: 512 } });

    // Act
    const lambda = line(monthlyCost(figures, REFERENCE_AGENCY), 'Lambda');

    // Assess
    const miss = 1 - ASSUMPTIONS.siteGetHitRatio;
    const calls = 2_000 * 30;
    const siteCalls = 50_000 * 30 * (0.5 * miss + 0.5 * miss + 0.5);
    const changes = calls * (0.2 + 0.05 + 0.15);
    const workers = changes * ASSUMPTIONS.workerInvocationsPerChange;
    const gbSeconds = calls * 0.15 * 0.2 * 0.5 + workers * (ASSUMPTIONS.workerMs / 1000) * 0.5;
    const expected =
      gbSeconds * PRICES.lambdaArmGbSecond + (calls + siteCalls + workers) * PRICES.lambdaRequest;
    expect(lambda).toBeCloseTo(expected, 10);
  });

  it('charges WAF on the site distribution alone: photo requests never reach a web ACL', () => {
    // Prepare: the same month with twice the photo requests a page view.
    const figures = measured({});
    const morePhotos = { ...ASSUMPTIONS, photoRequestsPerPageView: 2 * ASSUMPTIONS.photoRequestsPerPageView };

    // Act
    const waf = line(monthlyCost(figures, REFERENCE_PORTAL), 'WAF');
    const wafMorePhotos = line(monthlyCost(figures, REFERENCE_PORTAL, PRICES, morePhotos), 'WAF');

    // Assess: the web ACL, its two rules and every site request (1.5 a page view, cached or not).
    const siteRequests = 5_000_000 * 30 * 1.5;
    expect(waf).toBeCloseTo(5 + 2 * 1 + siteRequests * (0.6 / 1e6), 6);
    expect(wafMorePhotos).toBe(waf);
  });

  it("prices photo delivery from the bytes a page view loads, on the account's tiers, apart from the service", () => {
    // Prepare: site answers of 10 KB, so both distributions share the account's tiers.
    const figures = measured({
      searchSiteProperties: { ...nothing, responseBytes: 10_000 },
      getSitePropertyBySlug: { ...nothing, responseBytes: 10_000 },
    });
    const pageViews = 5_000_000 * 30;
    const photoBytes = pageViews * ASSUMPTIONS.photoBytesPerPageView;
    const photoRequests = pageViews * ASSUMPTIONS.photoRequestsPerPageView;
    const siteBytes = pageViews * 2 * 0.5 * 10_000;
    const siteRequests = pageViews * 1.5;

    // Act
    const cost = monthlyCost(figures, REFERENCE_PORTAL);

    // Assess: the account's bill over both, shared out by bytes and by requests.
    const all = cloudFrontUsd(photoBytes + siteBytes, photoRequests + siteRequests);
    const photos =
      (all.dataOut * photoBytes) / (photoBytes + siteBytes) +
      (all.requests * photoRequests) / (photoRequests + siteRequests);
    expect(line(cost, 'CloudFront, photos')).toBeCloseTo(photos, 6);
    expect(line(cost, 'CloudFront, site API') + line(cost, 'CloudFront, photos')).toBeCloseTo(
      all.dataOut + all.requests,
      6,
    );
    expect(cost.photoBytesOut).toBe(photoBytes);
  });

  it('sums the service and photo delivery apart, and the total of both', () => {
    // Prepare
    const figures = measured({ ingestLead: { ...nothing, writeUnits: 10, lambdaMs: 50, messages: 1 } });

    // Act
    const cost = monthlyCost(figures, REFERENCE_AGENCY);

    // Assess
    const sum = (part: string) => cost.lines.filter((l) => l.part === part).reduce((s, l) => s + l.usd, 0);
    expect(cost.service).toBeCloseTo(sum('service'), 12);
    expect(cost.photos).toBeCloseTo(sum('photos'), 12);
    expect(cost.total).toBeCloseTo(cost.service + cost.photos, 12);
    expect(cost.lines.filter((l) => l.part === 'photos').map((l) => l.item)).toEqual([
      'CloudFront, photos (HTTPS requests, data out)',
      'S3, photos (storage, origin GETs)',
    ]);
  });
});

describe('the default site budget', () => {
  it("fits the reference portal's busiest minute with headroom", () => {
    // Prepare: the GETs the edge misses, on average, as the cost table models the portal's month.
    const average = monthlyCost(measured({}), REFERENCE_PORTAL).budgetedSiteRequestsPerMinute;

    // Act
    const budget = config().SITE_RATE_LIMIT_TENANT_PER_MINUTE;

    // Assess: a busiest minute at 2.5 times the average, and half as much again of headroom
    // (docs/configuration.md, Sizing the site budget).
    expect(average).toBeGreaterThan(2_900);
    expect(budget).toBeGreaterThanOrEqual(average * 2.5 * 1.5);
  });
});

describe('renderCostTable', () => {
  it('puts a summary line per reference, then the service, photo delivery and the total, in dollars', () => {
    // Prepare
    const cost: MonthlyCost = {
      lines: [
        { item: 'DynamoDB reads', usd: 1234.5, part: 'service' },
        { item: 'CloudFront, photos', usd: 100, part: 'photos' },
      ],
      service: 1234.5,
      photos: 100,
      total: 1334.5,
      photoBytesOut: 2 * 1024 * GB,
      budgetedSiteRequestsPerMinute: 1,
    };

    // Act
    const table = renderCostTable([{ ref: REFERENCE_AGENCY, cost }], '2026-11-26');

    // Assess
    const lines = table.split('\n');
    expect(lines[0]).toBe(
      '- **Reference agency** (500 listings, 50,000 page views a day): **$1,234.50** a month for the service, **$100.00** for photo delivery (2.0 TB out), $1,334.50 in all.',
    );
    expect(lines.slice(2, 9)).toEqual([
      '| Monthly, USD | Reference agency (500 listings) |',
      '|---|---:|',
      '| DynamoDB reads | 1,234.50 |',
      '| **The service** | **1,234.50** |',
      '| CloudFront, photos | 100.00 |',
      '| **Photo delivery** | **100.00** |',
      '| **Total** | **1,334.50** |',
    ]);
    expect(table).toContain('2026-11-26');
  });
});

describe('replaceCostBlock', () => {
  it('replaces only what is between the markers, every other byte kept', () => {
    // Prepare
    const before = `# Title\n\nIntro.\n${COST_BLOCK_START}\nold table\nmore\n${COST_BLOCK_END}\nAfter.\n`;

    // Act
    const after = replaceCostBlock(before, '| new |');

    // Assess
    expect(after).toBe(`# Title\n\nIntro.\n${COST_BLOCK_START}\n| new |\n${COST_BLOCK_END}\nAfter.\n`);
    expect(replaceCostBlock(after, '| new |')).toBe(after);
  });

  it('refuses a text without the block or with two of them', () => {
    // Prepare
    const block = `${COST_BLOCK_START}\nx\n${COST_BLOCK_END}\n`;

    // Act / Assess
    expect(() => replaceCostBlock('# no block\n', 't')).toThrow(/cost-table:start/);
    expect(() => replaceCostBlock(`${block}${block}`, 't')).toThrow(/one/);
    expect(() => replaceCostBlock(`${COST_BLOCK_END}\n${COST_BLOCK_START}\n`, 't')).toThrow(/one/);
  });
});
