import { describe, expect, it } from 'vitest';
import {
  type ContainerFigures,
  type ManyTenantsSection,
  REQUEST_KINDS,
  renderManyTenants,
  requestPlan,
  requestRow,
  requestRows,
  type TenantRequestSample,
  tenantSizes,
  withinBudget,
} from '../../scripts/bench/many-tenants-mix.ts';

const sample = (over: Partial<TenantRequestSample>): TenantRequestSample => ({
  tenant: 0,
  kind: 'search',
  status: 200,
  cold: false,
  ms: 10,
  roundTrips: 3,
  afterRateLimit: 1,
  readUnits: 0.5,
  s3Reads: 0,
  ...over,
});

const container = (over: Partial<ContainerFigures>): ContainerFigures => ({
  container: 0,
  memoryMb: 1024,
  budgetBytes: 0.4 * 1024 * 1048576,
  requests: 100,
  tenantsServed: 20,
  snapshotLoads: 20,
  tableLoads: 0,
  s3Reads: 20,
  evictions: 0,
  maxBytesHeld: 50 * 1048576,
  endBytesHeld: 50 * 1048576,
  catalogues: 20,
  peakRssMb: 180,
  ...over,
});

describe('the many-Tenant bench: Tenant sizes', () => {
  it('gives the largest Tenant the largest size, a few large ones after it, and most a few hundred', () => {
    // Prepare / Act
    const sizes = tenantSizes(200, 50_000);

    // Assess
    expect(sizes).toHaveLength(200);
    expect(sizes[0]).toBe(50_000);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(sizes[1]).toBeGreaterThan(10_000);
    expect(sizes[1]).toBeLessThan(50_000);
    const fewHundred = sizes.filter((n) => n >= 100 && n < 500);
    expect(fewHundred.length).toBeGreaterThan(150);
    const total = sizes.reduce((sum, n) => sum + n, 0);
    // The top ten hold most of the listings: the skew the section is about.
    const topTen = sizes.slice(0, 10).reduce((sum, n) => sum + n, 0);
    expect(topTen / total).toBeGreaterThan(0.5);
  });

  it('is the same for the same seed, so runs compare', () => {
    expect(tenantSizes(30, 2000)).toEqual(tenantSizes(30, 2000));
    expect(tenantSizes(30, 2000, 1)).not.toEqual(tenantSizes(30, 2000, 2));
  });

  it('never gives a Tenant more than the largest, even when the largest is small', () => {
    const sizes = tenantSizes(10, 150);

    expect(Math.max(...sizes)).toBe(150);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(100);
  });
});

describe('the many-Tenant bench: the request mix', () => {
  it('sends the most requests to the largest Tenants, every kind, a different sequence per container', () => {
    // Prepare / Act
    const plans = requestPlan(30, 3, 2000);

    // Assess
    expect(plans).toHaveLength(3);
    const [first, second] = plans as [(typeof plans)[0], (typeof plans)[0]];
    expect(first).toHaveLength(2000);
    expect(first).not.toEqual(second);
    const byTenant = new Map<number, number>();
    for (const r of first) byTenant.set(r.tenant, (byTenant.get(r.tenant) ?? 0) + 1);
    expect(byTenant.get(0)).toBeGreaterThan(3 * (byTenant.get(9) ?? 0));
    expect(Math.max(...byTenant.keys())).toBeLessThan(30);
    expect(new Set(first.map((r) => r.kind))).toEqual(new Set(REQUEST_KINDS.map(([kind]) => kind)));
  });
});

describe('the many-Tenant bench: figures', () => {
  it('takes medians, worst cases, the p99 and the S3 reads in all of a group', () => {
    // Prepare
    const samples = [
      sample({ ms: 10 }),
      sample({ ms: 20 }),
      sample({ ms: 30, cold: true, roundTrips: 5, afterRateLimit: 3, readUnits: 2.5, s3Reads: 1 }),
    ];

    // Act
    const row = requestRow('all', samples);

    // Assess
    expect(row).toMatchObject({
      requests: 3,
      roundTrips: 3,
      maxRoundTrips: 5,
      afterRateLimit: 1,
      maxAfterRateLimit: 3,
      readUnits: 0.5,
      maxReadUnits: 2.5,
      s3Reads: 1,
      p50Ms: 20,
      p99Ms: 30,
    });
  });

  it('splits warm from cold requests and lists each kind warm, leaving out empty groups', () => {
    const rows = requestRows([
      sample({ kind: 'search' }),
      sample({ kind: 'detail' }),
      sample({ kind: 'search', cold: true, s3Reads: 1 }),
    ]);

    expect(rows.map((r) => [r.label.trim(), r.requests])).toEqual([
      ['all requests', 3],
      ['warm (catalogue held)', 2],
      ['cold (catalogue loaded)', 1],
      ['warm search', 1],
      ['warm detail', 1],
    ]);
  });

  it('marks a container whose catalogues went over its byte budget', () => {
    // Prepare
    const within = container({});
    const over = container({ container: 1, memoryMb: 512, budgetBytes: 100, maxBytesHeld: 101 });
    const section: ManyTenantsSection = {
      tenants: 30,
      largest: 2000,
      sizes: tenantSizes(30, 2000),
      totalListings: 9000,
      seedSeconds: 10,
      snapshotSeconds: 2,
      snapshotBytes: 1048576,
      containers: [within, over],
      rows: requestRows([sample({})]),
      failed: 0,
    };

    // Act
    const lines = renderManyTenants(section);

    // Assess
    expect(withinBudget(within)).toBe(true);
    expect(withinBudget(over)).toBe(false);
    const containerLines = lines.filter((l) => /^\s+#\d/.test(l));
    expect(containerLines).toHaveLength(2);
    expect(containerLines[0]).toContain('✓');
    expect(containerLines[1]).toContain('✗');
    expect(lines[0]).toContain('9,000 live listings');
    expect(lines.join('\n')).toContain('40% of the container');
  });
});
