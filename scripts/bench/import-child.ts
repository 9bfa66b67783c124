/**
 * The import section's run (import.ts starts it), in a process of its own: the DynamoDB faults go on
 * this process's client only, and its stream consumer reads the bench table's stream from now on
 * (LATEST), so neither the other sections nor their records are touched.
 *
 * What runs is what the local stack runs (scripts/local/start.ts), each on its own clock:
 * - the stream consumer (functions/streams/consumer.ts) on the local stream poller, with the worker
 *   table's mapping: its catalogue reaction marks the Tenant (debounced, catalogue-snapshot.ts);
 * - the rebuilder (functions/workers/catalogue-rebuild.ts), on AWS's schedule (each whole minute,
 *   `minute`, with the scheduled event's time) or the local stack's (`local`, the worker table's
 *   `localEveryMs`, no event); a tick while the previous run is still going is skipped;
 * - the import (`importListings`, as `admin listing import` calls it) of a generated feed, first with
 *   throttles injected past the SDK's retries at `throttleRate`, then the same feed again (the resume).
 * Every DynamoDB call of the process meets the faults the int tests run with (stale index reads,
 * transaction conflicts, throttles the SDK retries); only the first run's calls are throttled past
 * the retries. The snapshot store counts and decodes each rewrite as it lands.
 *
 * Input: one JSON ImportChildInput on stdin. Output: one JSON ImportSection on stdout; progress on stderr.
 */
import { localHandlerEnv } from './env.ts';
import {
  type ImportRun,
  type ImportSection,
  importFeed,
  importRun,
  type RebuildSchedule,
  type SnapshotRewrite,
  snapshotFigures,
} from './import-feed.ts';

export interface ImportChildInput {
  dynamoEndpoint: string;
  listings: number;
  throttleRate: number;
  /** Items the import runs at once; importListings' default (IMPORT_CONCURRENCY) if not given. */
  concurrency?: number | undefined;
  schedule: RebuildSchedule;
  /** How long to wait after the imports for a snapshot that covers them. */
  coverTimeoutSeconds: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(input: ImportChildInput): Promise<ImportSection> {
  Object.assign(process.env, localHandlerEnv(input.dynamoEndpoint));
  const faults = await import('../../test/support/dynamodb-faults.ts');
  const { dynamo } = await import('../../functions/data/client.ts');
  const { tableDefinition } = await import('../../functions/data/table.ts');
  faults.addDynamoFaults(
    dynamo(),
    { ...faults.DEFAULT_DYNAMO_FAULTS },
    {
      readCurrent: faults.consistentReader(input.dynamoEndpoint, 'us-east-1'),
      keyAttributes: [tableDefinition.partitionKey, tableDefinition.sortKey],
    },
  );
  (await import('../local/adapters/index.ts')).bindLocalAdapters();

  // The snapshot store of the local stack, each rewrite logged with what it holds.
  const { startCatalogueStore } = await import('./site-search.ts');
  const store = await startCatalogueStore();
  const { catalogueStore, setCatalogueStore } = await import(
    '../../functions/kernel/ports/catalogue-store.ts'
  );
  const { decodeSnapshot, REBUILD_DEBOUNCE_MS } = await import(
    '../../functions/services/catalogue-snapshot.ts'
  );
  const inner = catalogueStore();
  const rewrites: SnapshotRewrite[] = [];
  let tenantId = '';
  setCatalogueStore({
    read: (id) => inner.read(id),
    write: async (id, body, replacing) => {
      const written = await inner.write(id, body, replacing);
      if (id !== tenantId || !written) return written;
      const { snapshot } = decodeSnapshot(id, body);
      rewrites.push({
        at: Date.now(),
        watermark: snapshot.watermark,
        listings: snapshot.listings.length,
        bytes: body.length,
      });
      log(`  import: snapshot rewrite #${rewrites.length}: ${snapshot.listings.length} listings`);
      return written;
    },
  });

  const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
  const { getTenant } = await import('../../functions/data/tenants.ts');
  const created = await createTenantFromAdmin({
    slug: `bench-import-${Date.now().toString(36)}`,
    name: 'Bench Import Realty',
    languages: ['en', 'es'],
  });
  tenantId = created.tenantId;
  const tenant = await getTenant(tenantId, { consistent: true });
  if (!tenant) throw new Error('import bench: the new Tenant cannot be read');

  const { workerFor } = await import('../../functions/workers.ts');
  const { startStreamPoller, streamMappingOf } = await import('../local/stream-poller.ts');
  const { handler: consumer } = await import('../../functions/streams/consumer.ts');
  const onError = (what: string) => (error: unknown) => log(`  import: ${what}: ${(error as Error).message}`);
  const poller = startStreamPoller({
    endpoint: input.dynamoEndpoint,
    tableName: process.env.TABLE_NAME as string,
    handler: consumer,
    mapping: streamMappingOf(workerFor('streamConsumer')),
    initialPosition: 'LATEST',
    onError: onError('stream consumer'),
  });
  await poller.ready;

  const rebuilderRow = workerFor('catalogueRebuild');
  if (rebuilderRow.trigger.kind !== 'schedule') throw new Error('catalogueRebuild is not scheduled');
  const rebuildEveryMs = input.schedule === 'minute' ? 60_000 : rebuilderRow.trigger.localEveryMs;
  const { handler: rebuilder } = await import('../../functions/workers/catalogue-rebuild.ts');
  let rebuilding = false;
  const tick = () => {
    if (rebuilding) return;
    rebuilding = true;
    // EventBridge's scheduled event carries the minute it fired for; the local stack's timer, nothing.
    const event =
      input.schedule === 'minute'
        ? { time: new Date(Date.now() - (Date.now() % 60_000)).toISOString() }
        : undefined;
    void rebuilder(event)
      .catch(onError('rebuilder'))
      .finally(() => {
        rebuilding = false;
      });
  };
  let interval: NodeJS.Timeout | undefined;
  // EventBridge's `cron(* * * * ? *)` fires at each whole minute; the local stack at its start and then.
  const firstTickIn = input.schedule === 'minute' ? rebuildEveryMs - (Date.now() % rebuildEveryMs) : 0;
  const first = setTimeout(() => {
    tick();
    interval = setInterval(tick, rebuildEveryMs);
  }, firstTickIn);

  try {
    const { IMPORT_CONCURRENCY, importListings } = await import('../../functions/services/listing-import.ts');
    const concurrency = input.concurrency ?? IMPORT_CONCURRENCY;
    const feed = importFeed(input.listings, `BENCH-${tenant.slug}`);
    const runs: ImportRun[] = [];
    const progress = (label: string) => {
      const every = Math.max(1, Math.round(input.listings / 10));
      const started = performance.now();
      return (done: number, total: number) => {
        if (done % every === 0 || done === total)
          log(`  import ${label}: ${done}/${total} (${Math.round((performance.now() - started) / 1000)} s)`);
      };
    };
    log(
      `  import: ${input.listings} listings, throttled at ${input.throttleRate} past the SDK's retries, ${concurrency} at once…`,
    );
    let started = performance.now();
    const throttled = await faults.withDynamoFaults(
      { throttleRate: input.throttleRate, throttlePastRetries: true },
      () => importListings(tenant, feed, 'bench-feed.json', progress('throttled'), { concurrency }),
    );
    runs.push(importRun('throttled', input.throttleRate, throttled, performance.now() - started));
    log('  import: the same feed again (the resume)…');
    started = performance.now();
    const resumed = await importListings(tenant, feed, 'bench-feed.json', progress('resume'), {
      concurrency,
    });
    runs.push(importRun('resume', 0, resumed, performance.now() - started));
    const importsEndedAt = Date.now();

    // Past the faults' stale window, the table as it is: its last write and its live listings.
    await sleep(faults.DEFAULT_DYNAMO_FAULTS.staleMs * 2);
    const { queryAllListings } = await import('../../functions/data/listings.ts');
    const { listingStatus } = await import('../../functions/domain/listing.ts');
    const stored = await queryAllListings(tenantId);
    const live = stored.filter((l) => listingStatus(l) === 'live').length;
    const lastUpdatedAt =
      stored
        .map((l) => l.updatedAt)
        .sort()
        .at(-1) ?? '';
    log(
      `  import: done (${live} live listings, last write ${lastUpdatedAt}); waiting for a snapshot that covers it (up to ${input.coverTimeoutSeconds} s)…`,
    );
    const deadline = Date.now() + input.coverTimeoutSeconds * 1000;
    const covered = () => rewrites.some((r) => r.watermark !== undefined && r.watermark >= lastUpdatedAt);
    while (!covered() && Date.now() < deadline) await sleep(1000);
    return {
      listings: input.listings,
      throttleRate: input.throttleRate,
      concurrency,
      schedule: input.schedule,
      rebuildEveryMs,
      debounceMs: REBUILD_DEBOUNCE_MS,
      faults: faults.describeDynamoFaults(faults.DEFAULT_DYNAMO_FAULTS),
      runs,
      snapshot: snapshotFigures(rewrites, importsEndedAt, lastUpdatedAt, live),
    };
  } finally {
    clearTimeout(first);
    clearInterval(interval);
    await poller.stop();
    while (rebuilding) await sleep(100);
    await store.stop();
  }
}

let raw = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) raw += chunk;
const section = await main(JSON.parse(raw) as ImportChildInput);
process.stdout.write(JSON.stringify(section));
// The SDK clients' sockets and the local adapters' timers would keep the process alive.
process.exit(0);
