/**
 * `npm run soak -- --minutes M --seed S [--drain-seconds D] [--pause-ms P] [--kills-per-part K]
 *   [--plant NAME | --list-plants] [--readme] [--keep]` (issues 24 and 34).
 *
 * Runs the local stack with each moving part in its own process (API server, stream consumer,
 * webhook delivery worker with its sweeper, AI worker, photo import worker; scripts/soak/part.ts),
 * DynamoDB fault injection on in each and shared between them, on its own DynamoDB Local and
 * DATA_DIR. Three Tenants send seeded traffic for M minutes (scripts/soak/traffic.ts), the driver
 * keeping a ledger of what each answered change must lead to (scripts/soak/expected.ts), while the
 * stream consumer, the delivery worker and the API server are `kill -9`ed and started again at
 * seeded moments; webhook endpoints of every Tenant point at a healthy, a flaky, a going-away and an
 * always-failing receiver (scripts/soak/receivers.ts). Then the driver waits (at most D seconds) for
 * a settled stack (scripts/soak/settle.ts) and the audit (scripts/soak/audit.ts) compares the ledger
 * with what the stack holds, once. One screen of figures and a JSON report in the DATA_DIR
 * (scripts/soak/report.ts); the exit code is 1 on any loss or mismatch. `--plant NAME` plants a
 * fault (scripts/soak/plants.ts) that must make it fail.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import S3rver from 's3rver';
import { parseCommandLine } from '../command-line.ts';
import { LOCAL_CURSOR_SECRET } from '../local/adapters/index.ts';
import { LOCAL_PHOTO_BUCKET } from '../local/adapters/local-photo-store.ts';
import { seededRandom } from '../local/demo-photos.ts';
import { ensureTable, freePort, startDynamoLocal } from '../local/dynamo-local.ts';
import { audit, type RuleResult, report } from './audit.ts';
import { type Ledger, RECEIVERS, type TenantLedger } from './ledger.ts';
import type { SoakPart } from './parts.ts';
import { PLANTS } from './plants.ts';
import { type RunningPart, startPart } from './processes.ts';
import { startPhotoServer, startReceivers } from './receivers.ts';
import { REPORT_FILE, writeReadmeTable, writeReport } from './report.ts';
import { describeUnsettled, unsettled } from './settle.ts';
import type { TrafficTenant } from './traffic.ts';

const { values } = parseCommandLine({
  usage: 'npm run soak -- --minutes M --seed S [options]',
  summary:
    "Runs the local stack with each moving part in its own process and the DynamoDB faults on, drives seeded traffic from three Tenants and webhook receivers, kill -9s the parts, then audits the settled stack against the driver's ledger: nothing lost, nothing twice (docs/testing.md, Soak).",
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
    'drain-seconds': { type: 'string' },
    'pause-ms': { type: 'string', default: '1500' },
    keep: { type: 'boolean', default: false },
    'kills-per-part': { type: 'string' },
    'kill-parts': { type: 'string', default: 'stream,webhooks,api' },
    plant: { type: 'string' },
    'list-plants': { type: 'boolean', default: false },
    readme: { type: 'boolean', default: false },
  },
  help: {
    minutes: 'minutes of traffic',
    seed: 'the seed of the traffic, the faults and the kills (a run can be replayed)',
    'drain-seconds':
      "seconds the stack may take to settle after the traffic (default: 600, or the traffic's length if longer)",
    /*
     * The default pace, 1.5 s, is what this stack's local stand-ins drain on a 2-core machine: back to
     * back (`--pause-ms 0`), DynamoDB Local saturates a core and the drain measures the stand-in's
     * throughput rather than the pipeline's losses.
     */
    'pause-ms': "think time between one Tenant's requests",
    keep: 'keep the data folder after the run',
    'kills-per-part': 'kill -9s of each killed part (default: 0.6 a minute, at least one)',
    'kill-parts': 'the parts killed, comma-separated (stream, webhooks, api, ai, images)',
    plant: 'plant one fault (scripts/soak/plants.ts): the soak must then fail and name the loss',
    'list-plants': 'list the faults --plant can plant, and exit',
    readme: "write the README's soak table from this run's audit (a passing, unplanted run only)",
  },
});
if (values['list-plants']) {
  for (const [name, what] of Object.entries(PLANTS)) process.stdout.write(`${name.padEnd(28)} ${what}\n`);
  process.exit(0);
}
if (values.plant !== undefined && !(values.plant in PLANTS)) {
  console.error(`unknown plant "${values.plant}": npm run soak -- --list-plants lists them`);
  process.exit(2);
}
const minutes = Number(values.minutes);
const seed = Number(values.seed);
const pauseMs = Number(values['pause-ms']);
if (!(minutes > 0) || !Number.isInteger(seed) || !(pauseMs >= 0)) {
  console.error(
    'usage: npm run soak -- --minutes M --seed S [--drain-seconds D] [--pause-ms P (default 1500)] [--kills-per-part K] [--plant NAME | --list-plants] [--readme] [--keep]',
  );
  process.exit(2);
}
/** The drain's bound (it ends as soon as the audit passes): the shrunk ladder ends in ~2 min, a loaded machine needs more. */
// Work a kill took with it waits out its visibility timeout or the sweeper before it runs again, and
// a loaded machine drains slowly: the limit is generous, since the drain ends once the audit passes.
const drainMs = 1000 * Number(values['drain-seconds'] ?? Math.max(600, minutes * 60));
/** `kill -9`s per killed part: at least 5 each in 10 minutes, at least 1 in any run. */
const killsPerPart =
  values['kills-per-part'] === undefined
    ? Math.max(1, Math.ceil(minutes * 0.6))
    : Number(values['kills-per-part']);
if (!Number.isInteger(killsPerPart) || killsPerPart < 0) {
  console.error('--kills-per-part: a whole number ≥ 0');
  process.exit(2);
}
const KILLED = values['kill-parts'].split(',').filter(Boolean) as SoakPart[];
if (KILLED.some((part) => !['stream', 'webhooks', 'api', 'ai', 'images'].includes(part))) {
  console.error('--kill-parts: a comma-separated list of stream, webhooks, api, ai, images');
  process.exit(2);
}
const TENANTS = 3;
/** The ladder's waits shrink 2,000 times: 1 min → 30 ms, the 3 days → ~2 min. */
const RETRY_DELAY_SCALE = '0.0005';

const started = Date.now();
const log = (line: string) =>
  process.stdout.write(`[soak ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
const random = seededRandom(seed);

const dataDir = mkdtempSync(join(tmpdir(), 'lls-soak-'));
log(`seed ${seed}, ${minutes} min of traffic, DATA_DIR ${dataDir}`);
// In memory: a fresh table each run, and DynamoDB Local's fastest mode on a shared machine.
const dynamo = await startDynamoLocal();
const s3Port = await freePort();
const s3 = new S3rver({
  port: s3Port,
  address: '127.0.0.1',
  directory: resolve(dataDir, 's3'),
  silent: true,
  configureBuckets: [{ name: LOCAL_PHOTO_BUCKET, configs: [] }],
});
await s3.run();
const tableName = 'listings-leads-soak';
await ensureTable(dynamo.endpoint, tableName);

const unbounded = '1000000000';
// The handlers' configuration, in this process (the set-up and the audit's table reads) and every part.
Object.assign(process.env, {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: dynamo.endpoint,
  S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
  PHOTO_BUCKET: LOCAL_PHOTO_BUCKET,
  AWS_REGION: 'us-east-1',
  AUTH_CACHE_TTL_SECONDS: '0',
  LOG_LEVEL: 'ERROR',
  POWERTOOLS_TRACE_ENABLED: 'false',
  POWERTOOLS_METRICS_DISABLED: 'true',
  CURSOR_SECRET: LOCAL_CURSOR_SECRET,
  LOCAL_ALLOW_PRIVATE_URLS: '1',
  RETRY_DELAY_SCALE,
  RATE_LIMIT_KEY_PER_MINUTE: unbounded,
  RATE_LIMIT_TENANT_PER_MINUTE: unbounded,
  SITE_RATE_LIMIT_IP_PER_MINUTE: unbounded,
  SITE_RATE_LIMIT_NETWORK_PER_MINUTE: unbounded,
  SITE_RATE_LIMIT_TENANT_PER_MINUTE: unbounded,
  SITE_RATE_LIMIT_INQUIRY_PER_MINUTE: unbounded,
  DATA_DIR: dataDir,
  DYNAMODB_FAULTS_SEED: process.env.DYNAMODB_FAULTS_SEED ?? String(seed),
  // The parts share their writes' history (scripts/local/dynamodb-faults.ts), so that a write made by
  // one process may be read stale by another: the API's by the stream consumer, the consumer's by
  // the delivery worker, as on AWS.
  DYNAMODB_FAULTS_SHARED_DIR: join(dataDir, 'dynamodb-faults'),
  // Faults as DynamoDB makes them under load: a batch answered in part (UnprocessedItems/Keys), a
  // throttle that outlasts the SDK's retries, a write that lands while its caller sees a timeout or
  // a 500. The last two only in the stream consumer and the delivery worker (CALLER_SEES_FAULTS below).
  DYNAMODB_FAULTS_UNPROCESSED_RATE: process.env.DYNAMODB_FAULTS_UNPROCESSED_RATE ?? '0.2',
  DYNAMODB_FAULTS_PAST_RETRIES_RATE: process.env.DYNAMODB_FAULTS_PAST_RETRIES_RATE ?? '0.0005',
  DYNAMODB_FAULTS_AMBIGUOUS_RATE: process.env.DYNAMODB_FAULTS_AMBIGUOUS_RATE ?? '0.003',
  // The Scheduler stand-in fires a share of its schedules twice and fails a share of its sends to
  // the queue (then retries them), as Scheduler's at-least-once delivery and RetryPolicy allow.
  LOCAL_SCHEDULER_SEED: String(seed),
  LOCAL_SCHEDULER_DUPLICATE_RATE: process.env.LOCAL_SCHEDULER_DUPLICATE_RATE ?? '0.1',
  LOCAL_SCHEDULER_TARGET_FAILURE_RATE: process.env.LOCAL_SCHEDULER_TARGET_FAILURE_RATE ?? '0.1',
  ...(values.plant ? { SOAK_PLANT: values.plant } : {}),
});
const { describeDynamoFaults, dynamoFaultSettingsFromEnv } = await import('../local/dynamodb-faults.ts');
const faultRates = [
  `${describeDynamoFaults(dynamoFaultSettingsFromEnv())} (the api, ai and images parts: DYNAMODB_FAULTS_PAST_RETRIES_RATE=0 DYNAMODB_FAULTS_AMBIGUOUS_RATE=0)`,
  `Scheduler stand-in: LOCAL_SCHEDULER_DUPLICATE_RATE=${process.env.LOCAL_SCHEDULER_DUPLICATE_RATE} LOCAL_SCHEDULER_TARGET_FAILURE_RATE=${process.env.LOCAL_SCHEDULER_TARGET_FAILURE_RATE}`,
  `ladder: RETRY_DELAY_SCALE=${RETRY_DELAY_SCALE} (1 min → ${60_000 * Number(RETRY_DELAY_SCALE)} ms; waits over ${900 * Number(RETRY_DELAY_SCALE)} s go through the Scheduler stand-in; the sweeper every ${Math.max(1, 900 * Number(RETRY_DELAY_SCALE))} s)`,
];
for (const line of faultRates) log(line);
if (values.plant) log(`PLANTED: ${values.plant}: ${PLANTS[values.plant as keyof typeof PLANTS]}`);
(await import('../local/adapters/index.ts')).bindLocalAdapters();

// Tenants through the admin code paths of `npm start`'s seed (scripts/local/seed.ts).
const { orderByDepth, savePlace } = await import('../../functions/services/places.ts');
const { createTenantFromAdmin } = await import('../../functions/services/tenants.ts');
const { createAgent } = await import('../../functions/services/agents.ts');
const { issueApiKey } = await import('../../functions/services/api-keys.ts');
const { issueSiteKey } = await import('../../functions/services/site-keys.ts');
const { SCOPES } = await import('../../functions/domain/scopes.ts');
const { SUBSCRIBABLE_EVENT_TYPES } = await import('../../functions/domain/webhooks.ts');
const places = JSON.parse(readFileSync(resolve(import.meta.dirname, '../local/demo-places.json'), 'utf8'));
const parents = new Map();
for (const place of orderByDepth(places)) await savePlace(place, parents);
const placeCodes = (places as { code: string; kind: string }[])
  .filter((p) => p.kind === 'municipality' || p.kind === 'neighborhood')
  .map((p) => p.code);

const ledger: Ledger = {
  seed,
  minutes,
  tenants: [],
  requests: {},
  serverErrors: [],
  unanswered: 0,
  retries: {},
  kills: {},
  goneSince: 0,
  retryDelayScale: Number(RETRY_DELAY_SCALE),
  doomed: {},
};
const traffic: TrafficTenant[] = [];
for (let i = 0; i < TENANTS; i++) {
  const slug = `soak-${seed}-${i + 1}`;
  const tenant = await createTenantFromAdmin({
    slug,
    name: `Soak ${i + 1}`,
    languages: ['en'],
    defaultCountry: 'ES',
  });
  const admin = await createAgent({
    tenantId: tenant.tenantId,
    name: 'Soak Admin',
    email: `admin@${slug}.example`,
    isAdmin: true,
  });
  // A second Agent, so that a Lead can be handed over (lead.assigned with a previous Owner).
  const colleague = await createAgent({
    tenantId: tenant.tenantId,
    name: 'Soak Agent',
    email: `agent@${slug}.example`,
    isAdmin: false,
  });
  const { secret } = await issueApiKey({ tenantId: tenant.tenantId, name: 'soak', scopes: [...SCOPES] });
  const site = await issueSiteKey({
    tenantId: tenant.tenantId,
    origins: 'http://localhost',
    name: 'soak-site',
  });
  const tenantLedger: TenantLedger = {
    tenantId: tenant.tenantId,
    slug,
    expectedEvents: [],
    scoringRuns: {},
    enriched: [],
    ownerEmails: {},
    // The gone receiver's endpoint is disabled at its first 410: its one Admin is told once.
    disableNotices: 1,
    leads: {},
    inquiries: [],
    properties: {},
    imports: [],
    replays: [],
    concurrent: [],
    endpoints: [],
  };
  ledger.tenants.push(tenantLedger);
  traffic.push({
    ledger: tenantLedger,
    key: secret,
    siteKey: site.key,
    placeCodes,
    agentIds: [admin.id, colleague.id],
  });
}

const receivers = await startReceivers(seededRandom(seed ^ 0x7ec3));
const photos = await startPhotoServer();
const partEnv = { ...process.env, PORT: String(await freePort()) };
/**
 * The faults a caller sees as an error after the write may have landed (a throttle past the SDK's
 * retries, an answer lost) run in the stream consumer and the delivery worker, whose failed work is
 * retried within the soak (a stream batch at once, a delivery message after its 6-minute visibility
 * timeout). Not in the API: on AWS they reach the integrator as a 5xx to retry, and the driver
 * counts every 5xx as a failure. Not in the AI and import workers: their queues' visibility timeouts
 * (6 × their 180 s and 300 s function timeouts) would put the retry of a failed message past the
 * drain; their failure handling is the same SQS redelivery the delivery worker proves.
 */
const CALLER_SEES_FAULTS: readonly SoakPart[] = ['stream', 'webhooks'];
const WORKER_ONLY_FAULTS = { DYNAMODB_FAULTS_PAST_RETRIES_RATE: '0', DYNAMODB_FAULTS_AMBIGUOUS_RATE: '0' };
log('starting the parts: api, stream, webhooks, ai, images…');
const parts = new Map<SoakPart, RunningPart>();
await Promise.all(
  (['api', 'stream', 'webhooks', 'ai', 'images'] as const).map(async (part) => {
    parts.set(
      part,
      await startPart(
        part,
        CALLER_SEES_FAULTS.includes(part) ? partEnv : { ...partEnv, ...WORKER_ONLY_FAULTS },
        log,
      ),
    );
  }),
);
const apiUrl = parts.get('api')?.url as string;

let exitCode = 1;
// Interrupted (Ctrl-C, a test's timeout): the parts and DynamoDB Local go with the driver, never
// left running on their own.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the parts`);
    void Promise.all([...parts.values()].map((part) => part.stop()))
      .then(() => dynamo.stop())
      .finally(() => process.exit(130));
  });
}
try {
  for (const { ledger: tenant, key } of traffic) {
    for (const receiver of RECEIVERS) {
      const res = await fetch(`${apiUrl}/v1/webhooks/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: receivers.urlFor(receiver, tenant.slug),
          events: SUBSCRIBABLE_EVENT_TYPES,
        }),
      });
      const body = (await res.json()) as { id: string; secret: string; events: string[] };
      if (res.status !== 201)
        throw new Error(`subscribing ${receiver}: ${res.status} ${JSON.stringify(body)}`);
      receivers.register(receiver, tenant.slug, body.id, body.secret);
      tenant.endpoints.push({ id: body.id, receiver, secret: body.secret, events: body.events });
    }
  }
  const since = new Date(Date.now() - 60_000).toISOString();

  const trafficMs = minutes * 60_000;
  const until = Date.now() + trafficMs;
  const giveUpAt = until + 15_000;
  log(
    `traffic for ${minutes} min from ${TENANTS} Tenants; ${killsPerPart} kill(s) each of ${KILLED.join(', ')}`,
  );
  const kills = KILLED.flatMap((part) =>
    Array.from({ length: killsPerPart }, () => ({
      part,
      at: Date.now() + (0.05 + 0.85 * random()) * trafficMs,
    })),
  ).sort((a, b) => a.at - b.at);
  const killer = (async () => {
    for (const kill of kills) {
      await new Promise((r) => setTimeout(r, Math.max(0, kill.at - Date.now())));
      await parts.get(kill.part)?.killAndRestart();
      ledger.kills[kill.part] = (ledger.kills[kill.part] ?? 0) + 1;
      log(`kill -9 ${kill.part}, restarted`);
    }
  })();
  const goneTimer = setTimeout(() => {
    ledger.goneSince = receivers.startGone();
    log('the gone receiver answers 410 from now on');
  }, trafficMs / 2);
  const progress = setInterval(() => {
    const answered = Object.values(ledger.requests).reduce((a, b) => a + b, 0);
    const leads = ledger.tenants.reduce((n, t) => n + Object.keys(t.leads).length, 0);
    const retried = Object.entries(ledger.retries).map(([why, n]) => `${why} ${n}`);
    log(
      `${answered} requests, ${leads} Leads, ${receivers.received.length} webhook calls received` +
        (retried.length ? `; retried: ${retried.join(', ')}` : ''),
    );
  }, 10_000);
  const { runTenantTraffic } = await import('./traffic.ts');
  await Promise.all(
    traffic.map((tenant, i) =>
      runTenantTraffic(
        {
          apiUrl: () => apiUrl,
          photoUrl: photos.urlFor,
          random: seededRandom(seed * 31 + i),
          ledger,
          until,
          giveUpAt: () => giveUpAt,
          pauseMs,
        },
        tenant,
      ),
    ),
  );
  await killer;
  clearTimeout(goneTimer);
  log('traffic stopped; draining and auditing…');

  const { observe } = await import('./observe.ts');
  const drainUntil = Date.now() + drainMs;
  // Judged only once nothing is left to do before the drain ends (settle.ts), seen twice in a row
  // 5 s apart: a kill can leave work that only the sweeper's next pass brings back.
  const settleStarted = Date.now();
  let settledChecks = 0;
  let left: Awaited<ReturnType<typeof unsettled>>;
  for (;;) {
    left = await unsettled({
      endpoint: dynamo.endpoint,
      tableName,
      dataDir,
      drainEndsAt: drainUntil,
      endpoints: ledger.tenants.flatMap((t) =>
        t.endpoints.map((e) => ({ tenantId: t.tenantId, endpointId: e.id })),
      ),
      since,
    });
    settledChecks = left ? 0 : settledChecks + 1;
    if (settledChecks >= 2 || Date.now() > drainUntil) break;
    if (left) log(`waiting for a settled stack: ${describeUnsettled(left)}`);
    await new Promise((r) => setTimeout(r, left ? 10_000 : 5_000));
  }
  const settle = {
    waitedSeconds: Math.round((Date.now() - settleStarted) / 1000),
    settled: left === undefined,
    left: left ? describeUnsettled(left) : '',
  };
  log(
    settle.settled
      ? `settled after ${settle.waitedSeconds} s (queues empty, nothing due on the ladder, the stream read to its end): judging`
      : `NOT settled after ${settle.waitedSeconds} s (${settle.left}): judging anyway`,
  );
  for (const [endpointId, ids] of receivers.doomed) ledger.doomed[endpointId] = [...ids];
  const observation = await observe({
    apiUrl,
    tenants: traffic,
    since,
    received: receivers.received,
    dataDir,
  });
  const results: RuleResult[] = audit(ledger, observation);
  if (!settle.settled) {
    results.push({
      rule: 'settled',
      figures: settle.left,
      failures: [`not settled when the drain ended: ${settle.left}`],
    });
  }
  clearInterval(progress);
  const killed = KILLED.map((p) => `${p} ${ledger.kills[p] ?? 0}`).join(', ');
  const failed = results.some((r) => r.failures.length);
  process.stdout.write(
    `\n== soak audit: seed ${seed}, ${minutes} min, kill -9: ${killed}, ${((Date.now() - started) / 1000).toFixed(0)} s ==\n${report(results)}\n`,
  );
  if (failed) {
    // What the parts wrote to stderr last (their workers' errors), to start the diagnosis from.
    for (const part of parts.values()) {
      for (const line of part.errors.slice(-5))
        process.stdout.write(`  [${part.part} stderr] ${line.slice(0, 300)}\n`);
    }
  }
  const reportFile = writeReport(dataDir, {
    seed,
    minutes,
    plant: values.plant ?? null,
    faults: faultRates.join('\n'),
    kills: ledger.kills,
    settle,
    seconds: Math.round((Date.now() - started) / 1000),
    passed: !failed,
    results,
    requests: Object.values(ledger.requests).reduce((a, b) => a + b, 0),
  });
  log(`report: ${reportFile}`);
  if (values.readme) {
    if (failed || values.plant) log('--readme: a failed or planted run is not written to the README');
    else log(`README.md: ${writeReadmeTable(reportFile)}`);
  }
  process.stdout.write(
    failed ? 'SOAK FAILED: loss or mismatch (above)\n' : 'SOAK PASSED: nothing lost, nothing twice\n',
  );
  exitCode = failed ? 1 : 0;
} finally {
  for (const part of parts.values()) await part.stop();
  await receivers.close();
  await photos.close();
  await s3.close().catch(() => undefined);
  await dynamo.stop();
  // The report stays (with the parts' stderr logs); the data goes unless --keep.
  if (!values.keep) {
    for (const entry of readdirSync(dataDir)) {
      if (entry !== REPORT_FILE && !entry.endsWith('.stderr.log'))
        rmSync(join(dataDir, entry), { recursive: true, force: true });
    }
  }
}
process.exit(exitCode);
