/**
 * `npm start`: the whole service on this machine, in the foreground.
 * DynamoDB Local and the local S3 (s3rver behind a gateway that checks presigned requests as S3
 * does, adapters/local-s3.ts) keep their data under DATA_DIR (default .data/); the API serves the
 * same handler modules as Lambda on http://127.0.0.1:$PORT; the stream consumer polls the table's
 * stream. Ctrl-C stops everything.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { bindLocalAdapters, LOCAL_CURSOR_SECRET } from './adapters/index.ts';
import { LOCAL_PHOTO_BUCKET } from './adapters/local-photo-store.ts';
import { startLocalS3 } from './adapters/local-s3.ts';
import { ensureTable, freePort, startDynamoLocal } from './dynamo-local.ts';
import { dataDir, readStackInfo, removeStackInfo, writeStackInfo } from './stack-file.ts';

const dir = dataDir();
const port = Number(process.env.PORT ?? 3000);
const tableName = process.env.TABLE_NAME ?? 'listings-leads';
const log = (line: string) => process.stdout.write(`${line}\n`);

const running = readStackInfo(dir);
if (running) {
  console.error(
    `A local stack (pid ${running.pid}) already runs on ${dir} at ${running.apiUrl}; stop it first or set DATA_DIR.`,
  );
  process.exit(1);
}
mkdirSync(dir, { recursive: true });

log(`Starting DynamoDB Local (data in ${resolve(dir, 'dynamodb')})…`);
const dynamoPort = Number(process.env.DYNAMODB_PORT ?? (await freePort()));
const dynamo = await startDynamoLocal({ dataDir: resolve(dir, 'dynamodb'), port: dynamoPort });
const s3Port = Number(process.env.S3_PORT ?? (await freePort()));
const bucketName = process.env.PHOTO_BUCKET ?? LOCAL_PHOTO_BUCKET;
const s3 = await startLocalS3({ port: s3Port, directory: resolve(dir, 's3'), bucket: bucketName });

// The handlers read their configuration from the environment, exactly as in Lambda.
Object.assign(process.env, {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: dynamo.endpoint,
  S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
  PHOTO_BUCKET: bucketName,
  AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  // Locally a revoked key or a suspended tenant must bite on the very next request.
  AUTH_CACHE_TTL_SECONDS: process.env.AUTH_CACHE_TTL_SECONDS ?? '0',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
  POWERTOOLS_TRACE_ENABLED: 'false',
  CURSOR_SECRET: process.env.CURSOR_SECRET ?? LOCAL_CURSOR_SECRET,
});
// Explicitly: the local queue, the outbox and the local AI providers (Lambda builds the AWS ones).
bindLocalAdapters();

const created = await ensureTable(dynamo.endpoint, tableName);
log(created === 'created' ? `Created table ${tableName}` : `Using table ${tableName}`);

const { seedDemo } = await import('./seed.ts');
const demo = await seedDemo();

const { startApiServer } = await import('./server.ts');
const { localPages } = await import('./pages.ts');
const { demoSiteKey } = await import('./demo-site-key.ts');
const siteKey = await demoSiteKey(dir, demo.tenantId, demo.siteKey?.key);
const { server, url } = await startApiServer({
  port,
  log,
  // The example site is served from http://localhost and calls the API on 127.0.0.1: two origins,
  // so the browser applies CORS exactly as for a real website.
  pages: localPages({
    site: () => ({ apiBase: url, publishableKey: siteKey, turnstileSiteKey: null }),
  }),
});

// Every row of the worker table (functions/workers.ts) on its local trigger: the stream poller, a
// local queue's poller, or a timer for a schedule.
const { startWorkers } = await import('./workers.ts');
const runningWorkers = await startWorkers({ endpoint: dynamo.endpoint, tableName, dataDir: dir });

writeStackInfo(dir, {
  pid: process.pid,
  dynamoEndpoint: dynamo.endpoint,
  apiUrl: url,
  tableName,
  s3Endpoint: `http://127.0.0.1:${s3Port}`,
});

if (demo.keys) {
  log('');
  log(`Demo tenant "${demo.slug}" created (agent ${demo.agentEmail}). These keys are shown once:`);
  for (const k of demo.keys) log(`  ${k.name.padEnd(18)} ${k.key}   (${k.scopes.join(',')})`);
  log('');
  log(`  curl -H "Authorization: Bearer ${demo.keys[0]?.key}" ${url}/v1/places`);
}
if (demo.siteKey) {
  log('');
  log(
    `  ${demo.siteKey.name.padEnd(18)} ${demo.siteKey.key}   (publishable; origins ${demo.siteKey.origins.join(',')}, any port)`,
  );
  log(`  curl "${url}/v1/site/properties?key=${demo.siteKey.key}"`);
}
if (!demo.keys) {
  log(`Demo tenant "${demo.slug}" already exists; its keys were shown on the first start.`);
  log(
    `New key: npm run -s admin -- key create --tenant ${demo.slug} --name me --scopes properties:write,leads:read,leads:write`,
  );
}
log('');
log(`Example website: ${url.replace('127.0.0.1', 'localhost')}/site/`);
log(`API reference:   ${url}/docs`);
log(`Guides:          ${url}/docs/guides/ (docs/*.md; start with docs/getting-started.md)`);
log(`API ready on ${url}`);

if (demo.writeCatalogue && process.env.DEMO_CATALOGUE === 'off') {
  // A stack for work that needs none of the sample listings (the webhook tests): the demo tenant and
  // keys as usual, without the minutes of listings, photos and their events on a busy machine.
  log('Demo catalogue: off (DEMO_CATALOGUE=off)');
} else if (demo.writeCatalogue) {
  // The sample listings, then their photos, while the API already serves: each shows as it lands.
  const { writeCatalogue } = demo;
  const { illustrateCatalogue } = await import('./demo-illustrate.ts');
  void (async () => {
    const listings = await writeCatalogue();
    log(`Demo catalogue: ${listings.length} listings written`);
    const photos = await illustrateCatalogue(demo.tenantId, listings);
    log(`Demo catalogue: ${photos} photos drawn and added`);
  })().catch((error: unknown) => console.error('demo catalogue:', (error as Error).message));
} else {
  // A DATA_DIR from before renditions existed: the demo Tenant's photos get theirs (as
  // `npm run -s admin -- photos render --tenant <slug>` does), in the background; a photo with
  // renditions is skipped, so this finds nothing to do on every later start.
  const { renderStoredPhotos } = await import('../../functions/services/photo-processing.ts');
  void renderStoredPhotos(demo.tenantId)
    .then((report) => {
      if (report.photos > 0) {
        log(`Demo photos: ${report.rendered} of ${report.photos} stored before renditions rendered`);
      }
    })
    .catch((error: unknown) => console.error('demo photos:', (error as Error).message));
}

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('Stopping…');
  runningWorkers.stop();
  server.closeAllConnections();
  server.close();
  await s3.close().catch(() => undefined);
  await dynamo.stop();
  removeStackInfo(dir);
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
