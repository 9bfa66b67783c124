import { inject } from 'vitest';

/**
 * Where no DynamoDB Local runs (the unit and infra projects): a port nothing listens on, so that a
 * test of those kinds that reaches the table fails at once instead of passing on some other table.
 */
const NO_DYNAMODB = 'http://127.0.0.1:9';

// Runs before each test file's imports: the data modules read these when they load.
Object.assign(process.env, {
  DYNAMODB_ENDPOINT: inject('dynamoEndpoint') ?? NO_DYNAMODB,
  TABLE_NAME: inject('tableName') ?? 'listings-leads-test',
  S3_ENDPOINT: inject('s3Endpoint'),
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AUTH_CACHE_TTL_SECONDS: '0',
  LOG_LEVEL: 'SILENT',
  POWERTOOLS_TRACE_ENABLED: 'false',
  // The events list serves an event once it is this old (5 s deployed): time for a write the
  // injected faults delayed, without waiting 5 s at every step of the tests.
  EVENTS_SETTLE_SECONDS: '2',
});

// Imported only now, with the environment set.
const { bindLocalAdapters, LOCAL_CURSOR_SECRET } = await import('../../scripts/local/adapters/index.ts');
// The test's cursor key (Lambda reads its own from Secrets Manager).
process.env.CURSOR_SECRET = LOCAL_CURSOR_SECRET;
// Ports are bound explicitly, as the local stack binds them; a test may bind its own and rebinds
// the local adapters after.
bindLocalAdapters();
