import { inject } from 'vitest';

// Runs before each test file's imports: the data modules read these when they load.
Object.assign(process.env, {
  DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
  TABLE_NAME: inject('tableName'),
  S3_ENDPOINT: inject('s3Endpoint'),
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AUTH_CACHE_TTL_SECONDS: '0',
  LOG_LEVEL: 'SILENT',
  POWERTOOLS_TRACE_ENABLED: 'false',
});

// Imported only now, with the environment set.
const { bindLocalAdapters, LOCAL_CURSOR_SECRET } = await import('../../scripts/local/adapters/index.ts');
// The test's cursor key (Lambda reads its own from Secrets Manager).
process.env.CURSOR_SECRET = LOCAL_CURSOR_SECRET;
// Ports are bound explicitly, as the local stack binds them; a test may bind its own and rebinds
// the local adapters after.
bindLocalAdapters();
