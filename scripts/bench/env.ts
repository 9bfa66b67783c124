import { BENCH_CURSOR_SECRET } from './aws-responder.ts';

/**
 * The environments the bench runs handler code under. Kept in one place because the functions/
 * modules parse their configuration once, on import: whatever is in process.env at that moment is
 * what they keep, so these must be applied before the first dynamic import of any functions/ module.
 */

export const BENCH_TABLE = 'listings-leads-bench';

/** Far above what the load phase can send in a minute: the budget must never be the bottleneck. */
export const UNBOUNDED_RATE_LIMIT = '1000000000';

/**
 * The endpoint variables for DynamoDB Local: the service's own (DYNAMODB_ENDPOINT) and the one the
 * AWS SDK reads by itself (AWS_ENDPOINT_URL_DYNAMODB), so that whichever client reads the table
 * talks to the local one.
 */
export function dynamoEndpointEnv(endpoint: string): Record<string, string> {
  return { DYNAMODB_ENDPOINT: endpoint, AWS_ENDPOINT_URL_DYNAMODB: endpoint };
}

/**
 * Where the cold processes take the cursor key from: `env`, CURSOR_SECRET, as the stacks deploy it
 * today (resolved at deploy time); `secrets-manager`, CURSOR_SECRET_ARN, read once per container
 * through the Secrets Manager client (the responder answers it).
 */
export type CursorKeySource = 'env' | 'secrets-manager';

/**
 * A fresh process's environment for a cold start, as in Lambda: AWS_LAMBDA_FUNCTION_NAME is set, and
 * the bundle's entry binds the AWS adapters of the ports its row uses (lib/bundling.ts), which build
 * their SDK clients from the settings the stacks give them, and fail loudly without them. The SDK finds its endpoints through its own standard variables:
 * DynamoDB Local for the table (AWS_ENDPOINT_URL_DYNAMODB only; DYNAMODB_ENDPOINT, the local stack's
 * switch, stays unset as in Lambda) and the bench's responder (aws-responder.ts) for SQS, SES v2,
 * Bedrock Runtime and Secrets Manager. Credentials are the runtime's environment variables (dummy
 * ones, nothing is looked up); the cursor key as `cursorKey` says. Rate limits are raised so that the many samples
 * of one key are never refused; logging is the deployed default.
 */
export function coldStartEnv(
  dynamoEndpoint: string,
  aws: { endpoints: Record<string, string>; aiQueueUrl: string },
  functionName: string,
  cursorKey: CursorKeySource = 'env',
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    POWERTOOLS_SERVICE_NAME: 'listings-leads',
    LOG_LEVEL: 'INFO',
    TABLE_NAME: BENCH_TABLE,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench',
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    ...aws.endpoints,
    // The SQS client sends to the queue URL's host (aws-responder.ts responderQueueUrl).
    AI_QUEUE_URL: aws.aiQueueUrl,
    IMAGE_IMPORT_QUEUE_URL: aws.aiQueueUrl,
    // Presigning is offline; a route that reads or writes the bucket is not sampled with a real file.
    PHOTO_BUCKET: 'listings-leads-photos-bench',
    PHOTO_BASE_URL: 'https://photos.bench.example',
    EMAIL_FROM: 'listings@bench.example.com',
    AI_MODEL_ID: 'eu.anthropic.claude-bench-v1:0',
    ...(cursorKey === 'env'
      ? { CURSOR_SECRET: BENCH_CURSOR_SECRET }
      : {
          CURSOR_SECRET_ARN:
            'arn:aws:secretsmanager:us-east-1:000000000000:secret:listings-leads-cursor-bench',
        }),
    RATE_LIMIT_KEY_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
    RATE_LIMIT_TENANT_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
  };
}

/**
 * Warm handlers against DynamoDB Local. AUTH_CACHE_TTL_SECONDS=60 is the deployed default: a warm
 * Lambda has the API key cached, so the figures show what a steady-state request costs.
 */
export function localHandlerEnv(endpoint: string): Record<string, string> {
  return {
    ...dynamoEndpointEnv(endpoint),
    TABLE_NAME: BENCH_TABLE,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AUTH_CACHE_TTL_SECONDS: '60',
    LOG_LEVEL: 'SILENT',
    POWERTOOLS_TRACE_ENABLED: 'false',
    RATE_LIMIT_KEY_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
    RATE_LIMIT_TENANT_PER_MINUTE: UNBOUNDED_RATE_LIMIT,
    CURSOR_SECRET: 'bench-cursor-secret-local-only',
  };
}
