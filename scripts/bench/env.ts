/**
 * The environments the bench runs handler code under, and the local S3 the catalogue snapshots live
 * on. The functions/ modules read their configuration on first use: these are set before.
 */
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
export function localHandlerEnv(endpoint: string): Record<string, string> {
  return {
    ...vars(`DYNAMODB_ENDPOINT=${endpoint} AWS_ENDPOINT_URL_DYNAMODB=${endpoint} TABLE_NAME=${BENCH_TABLE}
      AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AUTH_CACHE_TTL_SECONDS=60
      LOG_LEVEL=SILENT CURSOR_SECRET=bench-cursor-secret-local-only`),
    ...BUDGETS,
  };
}

/**
 * A fresh process's whole environment for a cold start, as in Lambda: the bundle's entry binds the
 * AWS adapters its row uses, whose SDK clients find DynamoDB Local and the bench's responder
 * (aws-responder.ts) through the SDK's own AWS_ENDPOINT_URL_<SERVICE> variables (DYNAMODB_ENDPOINT,
 * the local stack's switch, stays unset as in Lambda); the SQS client sends to the queue URL's host,
 * so every queue is on the responder; the cursor key comes from Secrets Manager, as deployed.
 * Presigning is offline: no sampled route reads a real file.
 */
export function coldStartEnv(
  dynamo: string,
  aws: { endpoints: Record<string, string>; queueUrl: string },
  name: string,
) {
  const q = aws.queueUrl;
  return {
    PATH: process.env.PATH ?? '',
    ...vars(`AWS_LAMBDA_FUNCTION_NAME=${name} AWS_LAMBDA_FUNCTION_VERSION=$LATEST AWS_LAMBDA_FUNCTION_MEMORY_SIZE=1024
      AWS_EXECUTION_ENV=AWS_Lambda_nodejs24.x LOG_LEVEL=INFO POWERTOOLS_SERVICE_NAME=listings-leads AWS_REGION=us-east-1
      TABLE_NAME=${BENCH_TABLE} AWS_ENDPOINT_URL_DYNAMODB=${dynamo} CURSOR_SECRET_ARN=arn:aws:secretsmanager:cursor
      AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_SESSION_TOKEN=bench EMAIL_FROM=listings@bench.example
      AI_QUEUE_URL=${q} IMAGE_IMPORT_QUEUE_URL=${q} WEBHOOK_QUEUE_URL=${q} AI_MODEL_ID=eu.bench-v1:0
      PHOTO_BUCKET=photos-bench PHOTO_BASE_URL=https://photos.bench.example`),
    ...aws.endpoints,
    ...BUDGETS,
  };
}

/**
 * The local stack's S3 for the catalogue snapshots (and the photos), bound to their ports as the
 * functions read them in AWS. The answer stops it, once, and unbinds the ports.
 */
export async function startLocalStores(): Promise<() => Promise<void>> {
  const [{ mkdtempSync, rmSync }, { tmpdir }, { join }] = await Promise.all([
    import('node:fs'),
    import('node:os'),
    import('node:path'),
  ]);
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
