/**
 * The environments the bench runs handler code under (the functions/ modules read theirs on first
 * use: these are set before), and the local S3 the catalogue snapshots live on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsEndpointEnv, responderQueueUrl } from './aws-responder.ts';

export const BENCH_TABLE = 'listings-leads-bench';

/** `A=1 B=2`, as an environment file has them, → `{ A: '1', B: '2' }`. */
const vars = (list: string) =>
  Object.fromEntries(
    list
      .trim()
      .split(/\s+/)
      .map((v) => v.split('=') as [string, string]),
  );
/** Far above what the load section sends in a minute: no budget is ever the bottleneck. */
const BUDGETS = vars(`RATE_LIMIT_KEY_PER_MINUTE=1000000000 RATE_LIMIT_TENANT_PER_MINUTE=1000000000
  SITE_RATE_LIMIT_IP_PER_MINUTE=1000000000 SITE_RATE_LIMIT_NETWORK_PER_MINUTE=1000000000
  SITE_RATE_LIMIT_TENANT_PER_MINUTE=1000000000`);

/**
 * Warm handlers against DynamoDB Local, as the local stack runs them. AUTH_CACHE_TTL_SECONDS=60 is
 * the deployed default: a warm Lambda has the API key cached, so a figure is a steady request's.
 */
export const localHandlerEnv = (endpoint: string): Record<string, string> => ({
  ...vars(`DYNAMODB_ENDPOINT=${endpoint} AWS_ENDPOINT_URL_DYNAMODB=${endpoint} TABLE_NAME=${BENCH_TABLE}
    AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AUTH_CACHE_TTL_SECONDS=60
    LOG_LEVEL=SILENT CURSOR_SECRET=bench-cursor-secret-local-only`),
  ...BUDGETS,
});

/**
 * A fresh process's whole environment for a cold start, as in Lambda (docs/bench.md, cold-start):
 * the SDK clients find DynamoDB Local and the responder through AWS_ENDPOINT_URL_<SERVICE>, and
 * DYNAMODB_ENDPOINT, the local stack's switch, stays unset; every queue URL is the responder's.
 */
export function coldStartEnv(dynamo: string, responder: { http1: string; http2: string }, name: string) {
  const q = responderQueueUrl(responder);
  return {
    PATH: process.env.PATH ?? '',
    ...vars(`AWS_LAMBDA_FUNCTION_NAME=${name} AWS_LAMBDA_FUNCTION_VERSION=$LATEST AWS_LAMBDA_FUNCTION_MEMORY_SIZE=1024
      AWS_EXECUTION_ENV=AWS_Lambda_nodejs24.x LOG_LEVEL=INFO POWERTOOLS_SERVICE_NAME=listings-leads AWS_REGION=us-east-1
      TABLE_NAME=${BENCH_TABLE} AWS_ENDPOINT_URL_DYNAMODB=${dynamo} CURSOR_SECRET_ARN=arn:aws:secretsmanager:cursor
      AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_SESSION_TOKEN=bench EMAIL_FROM=listings@bench.example
      AI_QUEUE_URL=${q} IMAGE_IMPORT_QUEUE_URL=${q} WEBHOOK_QUEUE_URL=${q} AI_MODEL_ID=eu.bench-v1:0
      PHOTO_BUCKET=photos-bench CATALOGUE_BUCKET=photos-bench PHOTO_BASE_URL=https://photos.bench.example`),
    ...awsEndpointEnv(responder),
    ...BUDGETS,
  };
}

/** The local stack's S3, bound to the catalogue and photo ports; the answer stops it once, unbound. */
export async function startLocalStores(): Promise<() => Promise<void>> {
  const { startLocalS3 } = await import('../local/adapters/local-s3.ts');
  const { localCatalogueStore } = await import('../local/adapters/local-catalogue-store.ts');
  const { localPhotoStore } = await import('../local/adapters/local-photo-store.ts');
  const { setCatalogueStore } = await import('../../functions/kernel/ports/catalogue-store.ts');
  const { setPhotoStore } = await import('../../functions/kernel/ports/photo-store.ts');
  const directory = mkdtempSync(join(tmpdir(), 'lls-bench-s3-'));
  const s3 = await startLocalS3({ directory });
  setCatalogueStore(localCatalogueStore({ S3_ENDPOINT: s3.endpoint }));
  setPhotoStore(localPhotoStore({ S3_ENDPOINT: s3.endpoint }));
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= (async () => {
      setCatalogueStore(undefined);
      setPhotoStore(undefined);
      await s3.close();
      rmSync(directory, { recursive: true, force: true });
    })();
    return stopped;
  };
}
