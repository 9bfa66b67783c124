/**
 * One container of the many-Tenant section (many-tenants.ts): a fresh process that reads its plan
 * on stdin, serves each planned site request through the real handler modules as a warm Lambda
 * container would one after another (its catalogues held between requests, within the byte budget
 * of `memoryMb`), and prints what each request cost and what the container held.
 *
 * Its DynamoDB calls go through its own recorder in front of DynamoDB Local, so the round trips and
 * read units are this container's alone; the snapshots come from the bench's local S3. The
 * environment is set before the first functions/ module is imported: they read it on import.
 */
import { text } from 'node:stream/consumers';
import type { OperationId } from '../../functions/routes.ts';
import { startDynamoRecorder } from './dynamo-recorder.ts';
import { localHandlerEnv } from './env.ts';
import {
  type ContainerFigures,
  type PlannedRequest,
  type RequestKind,
  SEARCH_QUERIES,
  type TenantRequestSample,
} from './many-tenants-mix.ts';

export interface ContainerInput {
  container: number;
  dynamoEndpoint: string;
  s3Endpoint: string;
  memoryMb: number;
  /** By rank: each Tenant's publishable key and a few live slugs. */
  tenants: { siteKey: string; slugs: string[] }[];
  plan: PlannedRequest[];
}

export interface ContainerOutput {
  samples: TenantRequestSample[];
  figures: ContainerFigures;
}

const OPERATIONS: Record<RequestKind, OperationId> = {
  search: 'searchSiteProperties',
  detail: 'getSitePropertyBySlug',
  similar: 'listSimilarBySlug',
  locations: 'listSiteLocations',
};

const input = JSON.parse(await text(process.stdin)) as ContainerInput;
const recorder = await startDynamoRecorder(input.dynamoEndpoint);
Object.assign(process.env, localHandlerEnv(recorder.endpoint), {
  S3_ENDPOINT: input.s3Endpoint,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(input.memoryMb),
});
(await import('../local/adapters/index.ts')).bindLocalAdapters();
const { siteGet, roundsAfterRateLimit } = await import('./site-search.ts');
const { costOf } = await import('./dynamo-costs.ts');
const { catalogueStats } = await import('../../functions/services/site-catalogue.ts');

const samples: TenantRequestSample[] = [];
const served = new Set<number>();
let maxBytesHeld = 0;
for (const planned of input.plan) {
  const tenant = input.tenants[planned.tenant];
  if (!tenant) throw new Error(`many-tenants-child: no Tenant ${planned.tenant}`);
  const slug = tenant.slugs[planned.listing % Math.max(1, tenant.slugs.length)] ?? '';
  const byListing = planned.kind === 'detail' || planned.kind === 'similar';
  const query = planned.kind === 'search' ? (SEARCH_QUERIES[planned.query] ?? {}) : {};
  const before = catalogueStats();
  const started = performance.now();
  const { result, recording } = await recorder.record(() =>
    siteGet(OPERATIONS[planned.kind], tenant.siteKey, query, undefined, byListing ? { slug } : {}),
  );
  const ms = performance.now() - started;
  const after = catalogueStats();
  const cost = costOf(recording);
  served.add(planned.tenant);
  maxBytesHeld = Math.max(maxBytesHeld, after.bytes);
  samples.push({
    tenant: planned.tenant,
    kind: planned.kind,
    status: result.statusCode,
    cold: after.snapshotLoads + after.tableLoads > before.snapshotLoads + before.tableLoads,
    ms,
    roundTrips: cost.roundTrips,
    afterRateLimit: roundsAfterRateLimit(recording),
    readUnits: cost.readUnits,
    s3Reads: after.snapshotReads - before.snapshotReads,
  });
}
await recorder.stop();

const end = catalogueStats();
const output: ContainerOutput = {
  samples,
  figures: {
    container: input.container,
    memoryMb: input.memoryMb,
    budgetBytes: end.budgetBytes,
    requests: samples.length,
    tenantsServed: served.size,
    snapshotLoads: end.snapshotLoads,
    tableLoads: end.tableLoads,
    s3Reads: end.snapshotReads,
    evictions: end.evictions,
    maxBytesHeld,
    endBytesHeld: end.bytes,
    catalogues: end.held,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  },
};
process.stdout.write(JSON.stringify(output));
// Keep-alive sockets of the SDK clients would hold the process open.
process.exit(0);
