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
 * A fresh process's environment for a cold start, as in Lambda but pointed at DynamoDB Local:
 * dummy credentials in the environment (nothing is looked up), the deployed defaults for the rest
 * (logging included), rate limits raised so that the many samples of one key are never refused.
 * AWS_LAMBDA_FUNCTION_NAME is not set: outside Lambda the email and queue ports use their local
 * adapters (DynamoDB writes) instead of SES and SQS, which the bench cannot reach.
 */
export function coldStartEnv(endpoint: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    TABLE_NAME: BENCH_TABLE,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    ...dynamoEndpointEnv(endpoint),
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
