import { describe, expect, it } from 'vitest';
import {
  ASSUMPTIONS,
  COST_BLOCK_END,
  COST_BLOCK_START,
  type MeasuredOperation,
  type MeasuredOperations,
  MIX_OPERATIONS,
  monthlyCosts,
  REFERENCE_AGENCY,
  renderCostTable,
  replaceCostBlock,
} from '../../scripts/bench/cost-table.ts';
import { PRICES } from '../../scripts/bench/prices.ts';

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

const line = (items: { item: string; usd: number }[], name: string) =>
  items.find((i) => i.item === name)?.usd ?? Number.NaN;

describe('monthlyCosts: measured units × the month mix × list prices', () => {
  it('prices the read units of API calls by their share of the month', () => {
    // Prepare: only getProperty reads, 2 RCU a request.
    const figures = measured({ getProperty: { ...nothing, readUnits: 2 } });

    // Act
    const items = monthlyCosts(figures, REFERENCE_AGENCY);

    // Assess: 2,000 calls a day × 30 days × 30% getProperty × 2 RCU × $0.125 per million.
    expect(line(items, 'DynamoDB reads')).toBeCloseTo(2_000 * 30 * 0.3 * 2 * (0.125 / 1e6), 12);
  });

  it('charges a cached site GET only for the CloudFront misses, a POST for every view', () => {
    // Prepare: one write unit per site search and per view count.
    const figures = measured({
      searchSiteProperties: { ...nothing, writeUnits: 1 },
      countSitePropertyView: { ...nothing, writeUnits: 1 },
    });

    // Act
    const items = monthlyCosts(figures, REFERENCE_AGENCY);

    // Assess: 50,000 views a day × 30 × (0.5 searches × 20% misses + 0.5 view counts) × $0.625/M.
    const requests = 50_000 * 30 * (0.5 * (1 - ASSUMPTIONS.siteGetHitRatio) + 0.5);
    expect(line(items, 'DynamoDB writes')).toBeCloseTo(requests * (0.625 / 1e6), 12);
  });

  it('turns measured milliseconds and memory into arm64 GB-seconds', () => {
    // Prepare: listLeads takes 200 ms at 512 MB; the worker runs of changes are priced too.
    const figures = measured({ listLeads: { ...nothing, lambdaMs: 200, memoryMb: 512 } });

    // Act
    const lambda = line(monthlyCosts(figures, REFERENCE_AGENCY), 'Lambda (GB-s and requests)');

    // Assess
    const calls = 2_000 * 30;
    const siteCalls = 50_000 * 30 * (0.5 * 0.2 + 0.5 * 0.2 + 0.5);
    const changes = calls * (0.2 + 0.05 + 0.15);
    const workers = changes * ASSUMPTIONS.workerInvocationsPerChange;
    const gbSeconds = calls * 0.15 * 0.2 * 0.5 + workers * (ASSUMPTIONS.workerMs / 1000) * 0.5;
    const expected =
      gbSeconds * PRICES.lambdaArmGbSecond.usd + (calls + siteCalls + workers) * PRICES.lambdaRequest.usd;
    expect(lambda).toBeCloseTo(expected, 10);
  });

  it('ends with a total that is the sum of the line items', () => {
    // Prepare
    const figures = measured({ ingestLead: { ...nothing, writeUnits: 10, lambdaMs: 50, messages: 1 } });

    // Act
    const items = monthlyCosts(figures, REFERENCE_AGENCY);

    // Assess
    const total = items.at(-1);
    expect(total?.item).toBe('Total');
    expect(total?.usd).toBeCloseTo(
      items.slice(0, -1).reduce((sum, i) => sum + i.usd, 0),
      12,
    );
  });
});

describe('renderCostTable', () => {
  it('puts one row per line item and one column per reference, in dollars and cents', () => {
    // Prepare
    const items = [
      { item: 'DynamoDB reads', usd: 1234.5 },
      { item: 'Total', usd: 1234.5 },
    ];

    // Act
    const table = renderCostTable([{ ref: REFERENCE_AGENCY, items }], '2026-11-26');

    // Assess
    const lines = table.split('\n');
    expect(lines[0]).toBe('| Monthly, USD | Reference agency (500 listings) |');
    expect(lines[1]).toBe('|---|---:|');
    expect(lines[2]).toBe('| DynamoDB reads | 1,234.50 |');
    expect(lines[3]).toBe('| **Total** | **1,234.50** |');
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
