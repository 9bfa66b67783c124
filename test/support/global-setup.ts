import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { TestProject } from 'vitest/node';
import { LOCAL_PHOTO_BUCKET, LOCAL_S3_CORS } from '../../scripts/local/adapters/local-photo-store.ts';
import { ensureTable, startDynamoLocal } from '../../scripts/local/dynamo-local.ts';
import { describeDynamoFaults, dynamoFaultSettingsFromEnv } from '../../scripts/local/dynamodb-faults.ts';
import { clearAwsOperations } from './aws-operations.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    tableName: string;
    s3Endpoint: string;
  }
}

interface SharedDynamo {
  ready: Promise<{ endpoint: string; stop: () => Promise<void> }>;
  users: number;
}

/**
 * The projects that run on DynamoDB Local (int, e2e) share one instance: vitest runs every project's
 * global setup in its main process before any test, each project loading this file on its own, so
 * the instance is kept on `globalThis` and counted; the last project's teardown stops it.
 */
const shared = globalThis as typeof globalThis & { __listingsDynamoLocal?: SharedDynamo };

/** One in-memory DynamoDB Local for the whole run; test files isolate themselves by Tenant. */
export default async function setup(project: TestProject) {
  const tableName = 'listings-leads-test';
  if (!shared.__listingsDynamoLocal) {
    // This run records afresh what each function does on AWS (test/support/record-aws-operations.ts).
    clearAwsOperations();
    // Once per run: the seed and rates a failure is reproduced with (test/support/dynamodb-faults-setup.ts).
    console.log(describeDynamoFaults(dynamoFaultSettingsFromEnv()));
    shared.__listingsDynamoLocal = {
      users: 0,
      ready: startDynamoLocal().then(async (dynamo) => {
        await ensureTable(dynamo.endpoint, tableName);
        return dynamo;
      }),
    };
  }
  const instance = shared.__listingsDynamoLocal;
  instance.users += 1;
  const dynamo = await instance.ready;
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('tableName', tableName);
  // The photo bucket's local stand-in, as in npm start (presigned PUTs, photos served by key).
  const s3Dir = mkdtempSync(join(tmpdir(), 'lls-s3-'));
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory: s3Dir,
    silent: true,
    configureBuckets: [{ name: LOCAL_PHOTO_BUCKET, configs: [LOCAL_S3_CORS] }],
  });
  const { port: s3Port } = await s3.run();
  project.provide('s3Endpoint', `http://127.0.0.1:${s3Port}`);
  return async () => {
    // Each project's own S3 stand-in closes with it: left listening, its server would keep vitest's
    // main process alive after the run. The shared DynamoDB Local waits for the last project.
    await s3.close().catch(() => undefined);
    rmSync(s3Dir, { recursive: true, force: true });
    instance.users -= 1;
    if (instance.users > 0) return;
    delete shared.__listingsDynamoLocal;
    await dynamo.stop();
  };
}
