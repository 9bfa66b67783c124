/**
 * The import section's run (import.ts, docs/bench.md), in a process of its own: the DynamoDB faults
 * go on this process's client only, and its stream consumer reads the table's stream from now on
 * (LATEST), so neither the other sections nor their records are touched. What runs is what the
 * local stack runs: the stream consumer, the rebuilder on its schedule, `admin listing import`.
 */
import { answer, childInput } from '../child.ts';
import { importFeed } from '../data.ts';
import { localHandlerEnv, startLocalStores } from '../env.ts';
import { type ImportInput, importRun, type SnapshotRewrite, snapshotFigures } from './import.ts';

const { endpoint, coverTimeoutSeconds, ...options } = await childInput<ImportInput>();
const { listings, throttleRate, concurrency, schedule } = options;
const log = (line: string) => process.stderr.write(`  import: ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
Object.assign(process.env, localHandlerEnv(endpoint));
const faults = await import('../../local/dynamodb-faults.ts');
const { dynamo } = await import('../../../functions/data/client.ts');
const { tableDefinition: table } = await import('../../../functions/data/table.ts');
const readCurrent = faults.consistentReader(endpoint, 'us-east-1');
const keyAttributes = [table.partitionKey, table.sortKey];
faults.addDynamoFaults(dynamo(), { ...faults.DEFAULT_DYNAMO_FAULTS }, { readCurrent, keyAttributes });
(await import('../../local/adapters/index.ts')).bindLocalAdapters();

// The local stack's snapshot store, each rewrite of the Tenant's snapshot noted as it lands.
const stopStores = await startLocalStores();
const ports = await import('../../../functions/kernel/ports/catalogue-store.ts');
const snapshots = await import('../../../functions/services/catalogue-snapshot.ts');
const { createTenantFromAdmin } = await import('../../../functions/services/tenants.ts');
const { getTenant } = await import('../../../functions/data/tenants.ts');
const slug = `bench-import-${Date.now().toString(36)}`;
const { tenantId } = await createTenantFromAdmin({ slug, name: 'Bench Import', languages: ['en', 'es'] });
const tenant = await getTenant(tenantId, { consistent: true });
if (!tenant) throw new Error('import bench: the new Tenant cannot be read');
const store = ports.catalogueStore();
const rewrites: SnapshotRewrite[] = [];
ports.setCatalogueStore({
  read: (id) => store.read(id),
  write: async (id, body, replacing) => {
    const written = await store.write(id, body, replacing);
    if (id !== tenantId || !written) return written;
    const { watermark, listings: held } = snapshots.decodeSnapshot(id, body).snapshot;
    rewrites.push({ at: Date.now(), watermark, listings: held.length, bytes: body.length });
    log(`snapshot rewrite #${rewrites.length}: ${held.length} listings`);
    return written;
  },
});

const { workerFor } = await import('../../../functions/workers.ts');
const { startStreamPoller, streamMappingOf } = await import('../../local/stream-poller.ts');
const { handler: consumer } = await import('../../../functions/streams/consumer.ts');
const onError = (what: string) => (error: unknown) => log(`${what}: ${(error as Error).message}`);
const poller = startStreamPoller({
  endpoint,
  tableName: process.env.TABLE_NAME as string,
  handler: consumer,
  mapping: streamMappingOf(workerFor('streamConsumer')),
  initialPosition: 'LATEST',
  onError: onError('stream consumer'),
});
await poller.ready;
const row = workerFor('catalogueRebuild');
const rebuildEveryMs =
  schedule === 'minute' || row.trigger.kind !== 'schedule' ? 60_000 : row.trigger.localEveryMs;
const { handler: rebuilder } = await import('../../../functions/workers/catalogue-rebuild.ts');
let rebuilding: Promise<unknown> | undefined;
const tick = () => {
  // EventBridge's scheduled event carries the minute it fired for; the local stack's timer, nothing.
  const event =
    schedule === 'minute' ? { time: new Date(Date.now() - (Date.now() % 60_000)).toISOString() } : undefined;
  rebuilding ??= rebuilder(event)
    .catch(onError('rebuilder'))
    .finally(() => (rebuilding = undefined));
};
// EventBridge's `cron(* * * * ? *)` fires at each whole minute; the local stack at its start and then.
const firstTickIn = schedule === 'minute' ? 60_000 - (Date.now() % 60_000) : 0;
let interval: NodeJS.Timeout | undefined;
const first = setTimeout(() => {
  tick();
  interval = setInterval(tick, rebuildEveryMs);
}, firstTickIn);

const { importListings } = await import('../../../functions/services/listing-import.ts');
const feed = importFeed(listings, `BENCH-${slug}`);
/** One run of the feed, every DynamoDB call throttled at `rate` past the SDK's retries. */
const run = async (label: string, rate: number) => {
  const started = performance.now();
  const progress = (done: number, total: number) =>
    done % Math.ceil(total / 10) === 0 && log(`${label} ${done}/${total}`);
  const work = () => importListings(tenant, feed, 'bench-feed.json', progress, { concurrency });
  const summary = rate
    ? await faults.withDynamoFaults({ throttleRate: rate, throttlePastRetries: true }, work)
    : await work();
  return importRun(label, rate, summary, performance.now() - started);
};
log(`${listings} listings, throttled at ${throttleRate} past the SDK's retries, ${concurrency} at once…`);
// The same feed again is the resume: unchanged items skipped, the ones that failed created.
const runs = [await run('throttled', throttleRate), await run('resume', 0)];
const importsEndedAt = Date.now();
// Past the faults' stale window, the table as it is: its last write and its live listings.
await sleep(faults.DEFAULT_DYNAMO_FAULTS.staleMs * 2);
const { queryAllListings } = await import('../../../functions/data/listings.ts');
const { listingStatus } = await import('../../../functions/domain/listing.ts');
const stored = await queryAllListings(tenantId);
const live = stored.filter((l) => listingStatus(l) === 'live').length;
const last = stored.map((l) => l.updatedAt).sort()[stored.length - 1] ?? '';
log(`done: ${live} live listings, the last write ${last}; waiting for a snapshot that covers it…`);
const deadline = Date.now() + coverTimeoutSeconds * 1000;
while (!rewrites.some((r) => (r.watermark ?? '') >= last) && Date.now() < deadline) await sleep(1000);
clearTimeout(first);
clearInterval(interval);
await poller.stop();
await rebuilding;
await stopStores();
answer({
  ...options,
  rebuildEveryMs,
  debounceMs: snapshots.REBUILD_DEBOUNCE_MS,
  faults: faults.describeDynamoFaults(faults.DEFAULT_DYNAMO_FAULTS),
  runs,
  snapshot: snapshotFigures(rewrites, importsEndedAt, last, live),
});
