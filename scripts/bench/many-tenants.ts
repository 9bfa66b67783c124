import { runJsonChild } from './child-json.ts';
import type { ContainerInput, ContainerOutput } from './many-tenants-child.ts';
import {
  type ManyTenantsSection,
  requestPlan,
  requestRows,
  type TenantRequestSample,
  tenantSizes,
} from './many-tenants-mix.ts';
import { round } from './stats.ts';

type Log = (line: string) => void;

export interface ManyTenantsOptions {
  tenants: number;
  largest: number;
  containers: number;
  requestsPerContainer: number;
  /** The containers' memory settings (MB), taken in turn: their catalogues' byte budget follows from it. */
  memoryMb: number[];
  dynamoEndpoint: string;
  log: Log;
}

/** Runs one container's plan in a fresh process; its answer is its figures. */
function runContainer(input: ContainerInput): Promise<ContainerOutput> {
  return runJsonChild<ContainerOutput>('many-tenants-child.ts', input);
}

export async function measureManyTenants(options: ManyTenantsOptions): Promise<ManyTenantsSection> {
  const { log } = options;
  const { seedSiteTenant, startCatalogueStore } = await import('./site-search.ts');
  const { rebuildCatalogueSnapshot } = await import('../../functions/services/catalogue-rebuild.ts');
  const sizes = tenantSizes(options.tenants, options.largest);
  const totalListings = sizes.reduce((sum, n) => sum + n, 0);
  log(
    `  many Tenants: seeding ${options.tenants} Tenants, ${totalListings} live listings in all (largest ${sizes.slice(0, 3).join(', ')}…)`,
  );
  const seedStarted = performance.now();
  const fixtures = [];
  for (const [rank, live] of sizes.entries()) {
    fixtures.push(await seedSiteTenant(live, options.dynamoEndpoint, () => undefined));
    if ((rank + 1) % 20 === 0 || rank === 0) {
      log(
        `  seeded ${rank + 1}/${sizes.length} Tenants (${round((performance.now() - seedStarted) / 1000, 0)} s)`,
      );
    }
  }
  const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);

  const store = await startCatalogueStore();
  try {
    const snapshotStarted = performance.now();
    let snapshotBytes = 0;
    for (const fixture of fixtures) {
      snapshotBytes += (await rebuildCatalogueSnapshot(fixture.tenantId, { fromTable: true })).storedBytes;
    }
    const snapshotSeconds = round((performance.now() - snapshotStarted) / 1000, 1);
    log(
      `  snapshots of ${fixtures.length} Tenants built in ${snapshotSeconds} s (${snapshotBytes} bytes gzipped)`,
    );

    const plans = requestPlan(options.tenants, options.containers, options.requestsPerContainer);
    const tenants = fixtures.map((f) => ({ siteKey: f.siteKey, slugs: f.slugs }));
    const samples: TenantRequestSample[] = [];
    const containers = [];
    for (const [container, plan] of plans.entries()) {
      const output = await runContainer({
        container,
        dynamoEndpoint: options.dynamoEndpoint,
        s3Endpoint: store.endpoint,
        memoryMb: options.memoryMb[container % options.memoryMb.length] ?? 1024,
        tenants,
        plan,
      });
      const f = output.figures;
      log(
        `  container #${container + 1}: ${f.requests} requests over ${f.tenantsServed} Tenants, ${f.snapshotLoads + f.tableLoads} cold loads, ${f.evictions} evictions, max held ${round(f.maxBytesHeld / 1048576, 1)} of ${round(f.budgetBytes / 1048576, 1)} MB`,
      );
      samples.push(...output.samples);
      containers.push(f);
    }
    return {
      tenants: options.tenants,
      largest: options.largest,
      sizes,
      totalListings,
      seedSeconds,
      snapshotSeconds,
      snapshotBytes,
      containers,
      rows: requestRows(samples),
      failed: samples.filter((s) => s.status !== 200).length,
    };
  } finally {
    await store.stop();
  }
}
